/*
 * Visible seat hire/proof/refusal paths against a fake grok TUI (test/integration/seat/seat-fake-tui.ts: a real
 * process that writes active_sessions.json and spawns a real fake-leader child on the private socket),
 * in real tmux and in the Herdr simulator (which spawns without a PTY, so the real TUI cannot run there).
 */
import { afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, linkSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, chmodSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { openJournal } from "../../../src/journal/index.js";
import {
  HerdrBackend,
  type HerdrClient,
  type TmuxBackend,
  isTmuxAvailable,
  type PaneDescriptor,
} from "../../../src/mux/index.js";
import {
  hireSeat,
  proveSeatLeader,
  reproveTui,
  stopLeaderAfterTuiExit,
  observeExit,
  type VisibleSeat,
} from "../../../src/seat/index.js";
import { killEverything, makeWorld, options, tmuxWorldPerTest, refusal, type World } from "./seat-world.js";
import { startHerdrSim, type HerdrSim } from "../../fakes/herdr-sim.js";
import { startFakeLeader } from "../../fakes/fake-leader.js";
import { alive } from "../../support/processes.js";

const MAIN = join(process.cwd(), "dist", "src", "cli", "main.js");

let tmuxOk = false;
before(async () => {
  tmuxOk = await isTmuxAvailable();
});

describe("visible seat refusals (fake TUI in real tmux)", { concurrency: false }, () => {
  let w: World;
  let tmux: TmuxBackend;
  const world = tmuxWorldPerTest(
    () => tmuxOk,
    (made) => ({ w, tmux } = made),
  );

  test("hires a proven fake seat, delivers with consumed then completed evidence, and release stops only its own leader after the TUI exits", async (t) => {
    if (!world(t)) return;
    const seat: VisibleSeat = await hireSeat(options(w));
    assert.equal(seat.parts.admission.belowVerifiedFloor, true);
    const d = await seat.deliver("hello fake", { promptId: "it-1" });
    const done = await seat.waitFor(d.promptId, ["completed"], 5000);
    assert.equal(done?.state, "completed");
    assert.ok(done!.evidence.some((e) => e.kind === "consumed" && e.source === "_x.ai/queue/changed"));
    const leaderPid = seat.parts.leader.pid;
    const before = await seat.release();
    assert.equal(before.leaderStopped, false, "the TUI still runs: the leader is left alone");
    assert.ok(alive(leaderPid));
    await tmux.close(seat.parts.tui.pane);
    const result = await stopLeaderAfterTuiExit({
      seatId: seat.seatId,
      tui: seat.parts.tui,
      leader: seat.parts.leader,
      exitTimeoutMs: 10_000,
    });
    assert.equal(result.leaderStopped, true);
    assert.equal(alive(leaderPid), false);
  });

  test("refuses a grok below the version floor, naming the found version and the floor", async (t) => {
    if (!world(t)) return;
    const r = await refusal(w, {}, { versionFloor: "1.0.46" });
    assert.equal(r.code, "LEADER_VERSION_REFUSED");
    assert.match(r.message, /1\.0\.41/);
    assert.match(r.message, /1\.0\.46/);
  });

  test("refuses a leader without control_v1, saying that is what it lacks", async (t) => {
    if (!world(t)) return;
    const r = await refusal(w, { registered: { leader_capabilities: { control_v1: false } } });
    assert.equal(r.code, "LEADER_VERSION_REFUSED");
    assert.match(r.message, /control_v1/);
  });

  test("refuses when grok --version, the leader and its agent disagree on the version", async (t) => {
    if (!world(t)) return;
    const r = await refusal(w, { agentVersion: "1.0.40" });
    assert.equal(r.code, "LEADER_VERSION_REFUSED");
    assert.match(r.message, /one version/);
  });

  test("refuses an enabled direct mcp.linear.app endpoint before any brief and names the owner's step", async (t) => {
    if (!world(t)) return;
    const r = await refusal(w, { mcpServers: [{ name: "linear", url: "https://mcp.linear.app/sse", enabled: true }] });
    assert.equal(r.code, "SEAT_REFUSED");
    assert.match(r.message, /Disable the mcp\.linear\.app MCP server/);
    assert.equal(w.journal.listDeliveries(w.journal.listSeats({ includeReleased: true })[0]!.seatId).length, 0);
  });

  test("refuses an unknown model and an unknown effort instead of falling back, and a selection grok does not echo", async (t) => {
    if (!world(t)) return;
    assert.equal((await refusal(w, {}, { model: "grok-9000" })).code, "SEAT_REFUSED");
    assert.equal((await refusal(w, {}, { effort: "ludicrous" })).code, "SEAT_REFUSED");
    const noEcho = await refusal(w, { noEcho: true }, { model: "grok-4.5" });
    assert.equal(noEcho.code, "SEAT_REFUSED");
    assert.match(noEcho.message, /did not echo/);
  });

  test("refuses a leader running in another cwd", async (t) => {
    if (!world(t)) return;
    const r = await refusal(w, { leaderCwd: "/" });
    assert.equal(r.code, "IDENTITY_MISMATCH");
    assert.match(r.message, /cwd/);
  });

  test("refuses a leader running another executable", async (t) => {
    if (!world(t)) return;
    const other = join(w.root, "other-node");
    try {
      linkSync(process.execPath, other);
    } catch {
      copyFileSync(process.execPath, other);
      chmodSync(other, 0o755);
    }
    const r = await refusal(w, { leaderExe: other });
    assert.equal(r.code, "IDENTITY_MISMATCH");
    assert.match(r.message, /exe/);
  });

  test("refuses a symlinked leader socket", async (t) => {
    if (!world(t)) return;
    const r = await refusal(w, { symlinkSocket: true });
    assert.equal(r.code, "IDENTITY_MISMATCH");
    assert.match(r.message, /symlink|nothing listens/);
  });

  test("after hire, a replaced socket, a foreign owner or a reused pid with another birth fail the re-proof and release kills nothing", async (t) => {
    if (!world(t)) return;
    const seat = await hireSeat(options(w));
    const { leader, tui } = seat.parts;
    const foreign = await proveSeatLeader({
      ...leader,
      uid: 4242,
      tuiPid: tui.pid,
      birth: leader.birth,
      requireChildOfTui: false,
    });
    assert.equal(foreign.result.verdict, "mismatch");
    assert.ok(foreign.result.checks.some((c) => c.name === "socket-file" && /uid/.test(c.reason)));
    const reused = await reproveTui({ ...tui, birth: "1" });
    assert.equal(reused.verdict, "mismatch");
    assert.equal(
      await observeExit({ pid: tui.pid, birth: "1" }),
      "exited",
      "another birth on the same pid means the original is gone",
    );
    await seat.release();
    await tmux.close(tui.pane);
    // Replace the socket: another listener now sits at the private path.
    rmSync(leader.socketPath, { force: true });
    const impostor = createServer(() => {});
    await new Promise<void>((r) => impostor.listen(leader.socketPath, () => r()));
    w.cleanup.push(() => new Promise<void>((r) => impostor.close(() => r())));
    const replaced = await proveSeatLeader({
      ...leader,
      tuiPid: tui.pid,
      birth: leader.birth,
      requireChildOfTui: false,
    });
    // Two listeners now carry the path (the leader's unlinked one and the impostor): unknown, which refuses like mismatch.
    assert.notEqual(replaced.result.verdict, "match");
    await assert.rejects(
      stopLeaderAfterTuiExit({ seatId: seat.seatId, tui, leader, exitTimeoutMs: 10_000 }),
      (e: unknown) => isSeatError(e, "SEAT_RELEASE_REFUSED"),
    );
    assert.ok(alive(leader.pid), "an unproven leader is never signalled");
    // A record whose leader birth differs names a process that is gone, while its socket is still served by
    // something that cannot be named: release refuses loudly and signals nothing.
    await assert.rejects(
      stopLeaderAfterTuiExit({ seatId: seat.seatId, tui, leader: { ...leader, birth: "1" }, exitTimeoutMs: 1000 }),
      (e: unknown) => isSeatError(e, "SEAT_RELEASE_REFUSED"),
    );
    assert.ok(alive(leader.pid), "a pid with another birth is never signalled");
  });

  test("after the TUI exits, a record naming the live leader under a later birth, or a bystander pid under the leader's birth, is no respawn: release refuses and signals nothing; the true record stops it", async (t) => {
    if (!world(t)) return;
    const seat = await hireSeat(options(w));
    const { leader, tui } = seat.parts;
    await seat.release();
    await tmux.close(tui.pane);
    const bystander = spawn("sleep", ["60"], { stdio: "ignore" });
    w.cleanup.push(() => bystander.kill("SIGKILL"));
    const later = String(BigInt(leader.birth) + 1n);
    for (const forged of [
      { ...leader, birth: later },
      { ...leader, pid: bystander.pid! },
    ]) {
      await assert.rejects(
        stopLeaderAfterTuiExit({ seatId: seat.seatId, tui, leader: forged, exitTimeoutMs: 10_000 }),
        (e: unknown) => isSeatError(e, "SEAT_RELEASE_REFUSED") && /no respawn/.test(e.message),
      );
      assert.ok(alive(leader.pid), "the leader was not signalled");
      assert.ok(alive(bystander.pid!), "the bystander was not signalled");
    }
    const clean = await stopLeaderAfterTuiExit({ seatId: seat.seatId, tui, leader, exitTimeoutMs: 10_000 });
    assert.equal(clean.leaderStopped, true, clean.reason);
    assert.equal(alive(leader.pid), false);
  });

  test("a journal row pointing at some other live leader is never adopted: send refuses and nothing connects", async (t) => {
    if (!world(t)) return;
    const dir = mkdtempSync(join(tmpdir(), "gs-"));
    const fake = await startFakeLeader({ socketPath: join(dir, "s"), lockPid: process.pid });
    w.cleanup.push(
      () => fake.close(),
      () => rmSync(dir, { recursive: true, force: true }),
    );
    const seatHome = join(w.root, "sh");
    mkdirSync(seatHome, { mode: 0o700 });
    const journal = openJournal(join(seatHome, "seats.db"));
    journal.createSeat({
      seatId: "gs-foreign",
      sessionId: "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
      socketPath: fake.socketPath,
      state: "active",
      leaderPid: process.pid,
      leaderBirth: "1",
      tuiPid: process.pid,
      tuiBirth: "1",
    });
    journal.close();
    const r = spawnSync(process.execPath, [MAIN, "send", "gs-foreign", "brief", "--json"], {
      env: { ...process.env, GROK_SEAT_HOME: seatHome },
      encoding: "utf8",
    });
    assert.equal(r.status, 6, r.stderr);
    assert.equal(JSON.parse(r.stdout.trim()).code, "SEAT_NOT_ADMITTED");
    assert.equal(fake.peers.length, 0, "nothing connected to the foreign leader");
  });
});

describe("visible seat on the Herdr simulator (fake TUI: the simulator has no PTY for the real one)", {
  concurrency: false,
}, () => {
  let w: World;
  let sim: HerdrSim;
  afterEach(async () => {
    if (w) await killEverything(w);
  });
  const world = async (version = "0.9.0"): Promise<HerdrClient> => {
    const dir = mkdtempSync(join(tmpdir(), "gs-h-"));
    sim = await startHerdrSim({ socketPath: join(dir, "h.sock"), version });
    const backend = new HerdrBackend({ socketPath: sim.socketPath });
    w = makeWorld(backend);
    w.cleanup.push(
      () => sim.stop(),
      () => rmSync(dir, { recursive: true, force: true }),
    );
    return backend.client;
  };

  test("hires through Herdr when the agent fields agree with the launched grok session", async () => {
    const client = await world();
    const seat = await hireSeat(
      options(
        w,
        {},
        {
          onStep: (step, detail) => {
            if (step === "launched")
              void client.reportAgent((detail as PaneDescriptor).paneId, {
                source: "herdr:grok",
                agent: "grok",
                agent_session_id: seat_sid(w),
              });
          },
        },
      ),
    );
    assert.equal(seat.parts.tui.pane.backend, "herdr");
    await seat.release({ closePane: true });
  });

  test("refuses when Herdr's agent fields name another agent than the launched grok session, and stops the not-yet-proven leader bound to that TUI", async () => {
    const client = await world();
    let lockPid = 0;
    const r = await refusal(
      w,
      {},
      {
        onStep: (step, detail) => {
          if (step === "launched") {
            const paneId = (detail as PaneDescriptor).paneId;
            void client.reportAgent(paneId, { source: "herdr:pi", agent: "pi", agent_session_id: seat_sid(w) });
          }
          if (step === "ready") lockPid = (detail as { lockPid: number }).lockPid;
        },
      },
    );
    assert.equal(r.code, "HERDR_AGENT_REFUSED");
    const seat = w.journal.listSeats({ includeReleased: true }).at(-1)!;
    assert.equal(seat.leaderPid, null, "the refusal came before the leader proof");
    assert.ok(lockPid > 0);
    assert.equal(
      alive(lockPid),
      false,
      "the leader, proven bound to our TUI (session, exe, cwd, uid, socket), was stopped",
    );
    assert.equal(existsSync(join(seat.socketPath, "..")), false, "the socket directory was removed");
  });
});

function seat_sid(w: World): string {
  return w.journal.listSeats({ includeReleased: true }).at(-1)!.sessionId;
}
