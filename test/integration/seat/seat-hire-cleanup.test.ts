/*
 * Visible seat hire failures and races against the fake grok TUI in real tmux: every failure is a SeatError
 * that leaves nothing behind (no gs-* socket directory, no pane, no leader), the TUI binding waits for a
 * wrapper in the pane to exec grok (and refuses one that execs something else), and a send to a seat that
 * never existed says SEAT_NOT_FOUND.
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { isSeatError } from "../../../src/errors.js";
import { type TmuxBackend, isTmuxAvailable, type Backend, type LaunchSpec } from "../../../src/mux/index.js";
import { hireSeat, type HireSeatOptions } from "../../../src/seat/index.js";
import { options, tmuxWorldPerTest, type World } from "./seat-world.js";
import { alive } from "../../support/processes.js";

const MAIN = join(process.cwd(), "dist", "src", "cli", "main.js");

/** A tmux backend whose pane runs `sh -c '<before>; exec "$0" "$@"' argv…`: the pid is the wrapper's until it execs. */
function wrapped(inner: TmuxBackend, before: string, execProgram?: string[]): Backend {
  return {
    name: inner.name,
    launch: (spec: LaunchSpec) =>
      inner.launch({ ...spec, argv: ["/bin/sh", "-c", `${before}; exec "$0" "$@"`, ...(execProgram ?? spec.argv)] }),
    isAlive: (pane) => inner.isAlive(pane),
    waitForExit: (pane, o) => inner.waitForExit(pane, o),
    capture: (pane) => inner.capture(pane),
    attachCommand: (pane) => inner.attachCommand(pane),
    close: (pane) => inner.close(pane),
  };
}

let tmuxOk = false;
before(async () => {
  tmuxOk = await isTmuxAvailable();
});

describe("visible seat hire failures leave nothing behind (fake TUI in real tmux)", { concurrency: false }, () => {
  let w: World;
  let tmux: TmuxBackend;
  let socketRoot: string;
  const world = tmuxWorldPerTest(
    () => tmuxOk,
    (made) => {
      ({ w, tmux } = made);
      socketRoot = join(w.root, "sr");
      mkdirSync(socketRoot, { mode: 0o700 });
    },
  );
  const hireError = async (opts: HireSeatOptions): Promise<{ code: string; message: string }> => {
    try {
      const seat = await hireSeat(opts);
      await seat.release({ closePane: true });
    } catch (error) {
      assert.ok(isSeatError(error), `not a SeatError: ${String(error)}`);
      return { code: error.code, message: error.message };
    }
    assert.fail("the hire was not refused");
  };
  const sessions = () =>
    spawnSync("tmux", ["-L", tmux.socketName, "list-panes", "-a"], { encoding: "utf8" }).stdout.trim();

  test("a missing grok binary is a GROK_NOT_FOUND SeatError and leaves no gs-* socket directory", async (t) => {
    if (!world(t)) return;
    const r = await hireError({ ...options(w), grokBinary: join(w.root, "no-such-grok"), binaryArgs: [], socketRoot });
    assert.equal(r.code, "GROK_NOT_FOUND");
    assert.match(r.message, /no-such-grok/);
    assert.deepEqual(readdirSync(socketRoot), [], "no socket directory is left");
  });

  test("a refusal after the leader was proven closes the pane, stops the leader and removes the socket directory", async (t) => {
    if (!world(t)) return;
    const r = await hireError({ ...options(w, {}, { versionFloor: "1.0.46" }), socketRoot });
    assert.equal(r.code, "LEADER_VERSION_REFUSED");
    const seat = w.journal.listSeats({ includeReleased: true })[0]!;
    assert.equal(seat.state, "released");
    assert.ok(seat.leaderPid && seat.tuiPid);
    assert.equal(alive(seat.leaderPid!), false, "the proven leader was stopped");
    assert.equal(alive(seat.tuiPid!), false, "the TUI is gone");
    assert.deepEqual(readdirSync(socketRoot), []);
  });

  test("a leader that fails its proof (another cwd) is never signalled: the refusal keeps its socket directory and says so", async (t) => {
    if (!world(t)) return;
    const steps: Array<[string, unknown]> = [];
    const r = await hireError({
      ...options(w, { leaderCwd: "/" }, { onStep: (step, detail) => steps.push([step, detail]) }),
      socketRoot,
    });
    assert.equal(r.code, "IDENTITY_MISMATCH");
    const lockPid = (steps.find(([s]) => s === "ready")![1] as { lockPid: number }).lockPid;
    assert.ok(alive(lockPid), "an unproven process is never signalled");
    const refusedCleanup = steps.find(([s]) => s === "cleanup-refused");
    assert.match(String(refusedCleanup?.[1]), /cwd/);
    assert.equal(readdirSync(socketRoot).length, 1, "the directory it serves is kept");
    process.kill(lockPid, "SIGKILL");
  });

  test("a pane program that exits at once is refused as a SeatError with no directory left", async (t) => {
    if (!world(t)) return;
    const r = await hireError({ ...options(w), binaryArgs: ["-e", "process.exit(0)", "--"], socketRoot });
    assert.ok(["IDENTITY_MISMATCH", "GROK_EXITED", "IDENTITY_UNKNOWN"].includes(r.code), r.message);
    assert.deepEqual(readdirSync(socketRoot), []);
    assert.equal(sessions(), "", "no pane is left");
  });
});

describe("TUI binding waits for the pane's wrapper to exec grok", { concurrency: false }, () => {
  let w: World;
  let tmux: TmuxBackend;
  const world = tmuxWorldPerTest(
    () => tmuxOk,
    (made) => ({ w, tmux } = made),
  );

  test("a wrapper that sleeps before exec'ing grok is bound once the exec happened (same pid and start time)", async (t) => {
    if (!world(t)) return;
    const seat = await hireSeat(options(w, {}, { backend: wrapped(tmux, "sleep 0.7") }));
    try {
      assert.equal(seat.parts.tui.exe, process.execPath);
      assert.equal(seat.parts.tui.pid, seat.parts.tui.pane.pid, "the bound pid is the wrapper's pid, now running grok");
    } finally {
      await seat.release({ closePane: true });
    }
  });

  test("a wrapper that execs another program is refused with IDENTITY_MISMATCH naming the executable", async (t) => {
    if (!world(t)) return;
    try {
      await hireSeat(options(w, {}, { backend: wrapped(tmux, "sleep 0.2", ["sleep", "30"]) }));
      assert.fail("the hire was not refused");
    } catch (error) {
      assert.ok(isSeatError(error, "IDENTITY_MISMATCH"), String(error));
      assert.match(error.message, /exe: \S*sleep/);
    }
  });
});

test("send to a seat that never existed says SEAT_NOT_FOUND, not SEAT_NOT_ADMITTED", () => {
  const root = join(process.env.TMPDIR ?? "/tmp", `gs-nf-${randomBytes(4).toString("hex")}`);
  mkdirSync(root, { mode: 0o700 });
  try {
    const r = spawnSync(process.execPath, [MAIN, "send", "gs-00000000", "a brief", "--json"], {
      env: { ...process.env, GROK_SEAT_HOME: root },
      encoding: "utf8",
    });
    const json = JSON.parse(r.stdout.trim());
    assert.equal(json.code, "SEAT_NOT_FOUND", r.stdout);
    assert.equal(r.status, 1);
    assert.doesNotMatch(json.message, /release/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
