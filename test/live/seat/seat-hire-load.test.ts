/*
 * Live hire under load (issue 14 §7): the real grok 1.0.41 TUI hired in a private tmux server while busy loops
 * hold both cores, and the readiness a handshake step waits on, read from the real leader: its pongs, and the
 * lines it writes to $GROK_HOME/logs/unified.jsonl under its own pid. A stopped leader (SIGSTOP) shows none and
 * fails after the idle window. Offline against the mock model; the version floor is lowered to 1.0.41.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { openJournal } from "../../../src/journal/index.js";
import { TmuxBackend, isTmuxAvailable } from "../../../src/mux/index.js";
import { awaitHandshake, hireSeat, type HandshakeWatch, type VisibleSeat } from "../../../src/seat/index.js";
import { startLiveRig } from "../../support/live-rig.js";
import { alive } from "../../support/processes.js";
import { gotLive } from "../../support/requirements.js";

const never = new Promise<never>(() => {});

async function failure(work: Promise<unknown>): Promise<any> {
  try {
    await work;
  } catch (error) {
    assert.ok(isSeatError(error), String(error));
    return error;
  }
  assert.fail("the wait did not fail");
}

describe("visible seat hire under load on the real grok TUI", { concurrency: false }, () => {
  test("hires while busy loops hold both cores; a step waits on the real leader's pongs and its own log lines, and a stopped leader fails after the idle window", async (t) => {
    const rig = (await isTmuxAvailable()) ? await startLiveRig({ chunkDelayMs: 20 }) : "tmux (not found on PATH)";
    if (!gotLive(t, rig)) return;
    const socketName = `gs-load-${randomBytes(4).toString("hex")}`;
    const backend = new TmuxBackend({ socketName });
    const journal = openJournal(join(rig.sandbox.root, "seats.db"));
    const busy: ChildProcess[] = [0, 1].map(() => spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }));
    let seat: VisibleSeat | null = null;
    const pids = new Set<number>();
    try {
      seat = await hireSeat({
        grokBinary: rig.binary,
        cwd: rig.sandbox.project,
        env: { ...rig.sandbox.env, PATH: process.env.PATH ?? "/usr/bin:/bin", TERM: "xterm-256color" },
        mux: "tmux",
        backend,
        journal,
        versionFloor: "1.0.41",
      });
      for (const b of busy) b.kill("SIGKILL");
      const { leader, tui, plan, client } = seat.parts;
      pids.add(leader.pid).add(tui.pid);
      assert.equal(journal.getSeat(seat.seatId)?.state, "active");
      const watch: HandshakeWatch = { client, leaderPid: leader.pid, grokHome: plan.grokHome };

      // A live leader that never answers this (unsent) step: its pongs and the lines it logs while a brief runs
      // keep the wait going until the cap, and the failure says so.
      const capped = failure(awaitHandshake(never, "probe", watch, { idleMs: 1_500, capMs: 5_000 }));
      const d = await seat.deliver("a brief while a step waits", { promptId: `${seat.seatId}-load-1` });
      const error = await capped;
      assert.equal(error.code, "ACP_HANDSHAKE_FAILED");
      assert.ok(error.context.waitedMs >= 5_000, String(error.context.waitedMs));
      assert.ok(error.context.readiness.pongs > 0, JSON.stringify(error.context.readiness));
      assert.ok(
        error.context.readiness.logLines > 0,
        `the real leader's own lines in unified.jsonl: ${JSON.stringify(error.context.readiness)}`,
      );
      assert.match(error.message, /grok kept showing progress/);
      assert.equal((await seat.waitFor(d.promptId, ["completed"], 30_000))?.state, "completed");

      // A stopped leader: no pong, no line; the step fails after the idle window, long before the cap.
      process.kill(leader.pid, "SIGSTOP");
      try {
        const stopped = await failure(awaitHandshake(never, "probe", watch, { idleMs: 1_500, capMs: 20_000 }));
        assert.ok(stopped.context.waitedMs < 10_000, String(stopped.context.waitedMs));
        assert.match(stopped.message, /no sign of progress for the last/);
      } finally {
        process.kill(leader.pid, "SIGCONT");
      }
      // A read the leader dropped (here: one never sent) is sent again once the real leader's log has been quiet
      // for quietMs, and the real answer to the re-send ends the step (hire does this for _x.ai/commands/list).
      let resent = 0;
      const info = (await awaitHandshake(
        never,
        "probe",
        watch,
        { idleMs: 20_000, capMs: 30_000 },
        {},
        { send: () => (resent++, client.control({ type: "get_leader_info" })), quietMs: 1_000 },
      )) as { pid?: number };
      assert.equal(info.pid, leader.pid);
      assert.equal(resent, 1);
      await seat.release({ closePane: true });
    } finally {
      for (const b of busy) b.kill("SIGKILL");
      spawnSync("tmux", ["-L", socketName, "kill-server"]);
      for (const s of journal.listSeats({ includeReleased: true }))
        for (const pid of [s.tuiPid, s.leaderPid]) if (pid) pids.add(pid);
      for (const pid of pids)
        if (alive(pid))
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* gone */
          }
      for (let i = 0; i < 100 && [...pids].some((pid) => alive(pid)); i += 1)
        await new Promise((r) => setTimeout(r, 50));
      journal.close();
      await rig.close();
    }
  });
});
