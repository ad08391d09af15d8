/*
 * seat restore claims a lost seat on its journal row before it launches anything: two restores of one seat at
 * once launch exactly one controller, a seat claimed by a restorer that still runs is not lost (for seat ps
 * either), and a claim whose restorer died (kill -9 mid-restore) or whose controller refused hands the seat back.
 * Real sqlite journal, real controller processes (refusing at once: the grok binary does not exist).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listLive } from "../../../src/listing/listing.js";
import { openJournal } from "../../../src/journal/index.js";
import { isSeatLost, restoreSeat } from "../../../src/seat/index.js";
import { claimSocketPath } from "../../../src/journal/index.js";
import { ensurePrivateDir, journalPath, seatDir, writeSeatFile } from "../../../src/home/index.js";
import type { ControllerConfig } from "../../../src/seat/controller.js";
import { platformIdentitySource } from "../../../src/identity/index.js";

const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
const OLD_SOCKET = "/tmp/gs-gone/s";

/** A seat home with one lost seat: its controller exited, no leader proven, hire.json naming a missing grok. */
function lostSeat(): { home: string; seatId: string; env: NodeJS.ProcessEnv } {
  const home = mkdtempSync(join(tmpdir(), "gs-restore-claim-"));
  const seatId = "seat-claim";
  for (const dir of [home, join(home, "seats"), seatDir(home, seatId)]) ensurePrivateDir(dir);
  const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
  writeSeatFile(seatDir(home, seatId), {
    schema: "grok-seat.seat.v1",
    seat_id: seatId,
    session_id: SID,
    controller_pid: dead,
    controller_birth: "0",
    control_socket: join(seatDir(home, seatId), "c.sock"),
    grok_home: null,
    cwd: home,
    socket_dir: null,
    mux: "tmux",
    admission: null,
    selected: null,
    state: "active",
  });
  const config: ControllerConfig = {
    seatHome: home,
    seatId,
    grokBinary: join(home, "no-such-grok"),
    cwd: home,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    mux: "tmux",
    tmuxSocket: join(home, "tmux.sock"),
  };
  writeFileSync(join(seatDir(home, seatId), "hire.json"), JSON.stringify(config), { mode: 0o600 });
  const journal = openJournal(journalPath(home));
  journal.createSeat({ seatId, sessionId: SID, socketPath: OLD_SOCKET, state: "active" });
  journal.close();
  return { home, seatId, env: { PATH: process.env.PATH, HOME: home, TMPDIR: home } };
}

function controllerRuns(home: string, seatId: string): number {
  const log = readFileSync(join(seatDir(home, seatId), "controller.log"), "utf8");
  return log.split("\n").filter((line) => line.includes('"type":"refused"')).length;
}

test("two seat restores of one lost seat at once launch exactly one controller; the other is SEAT_RESTORE_CONFLICT", async () => {
  const { home, seatId, env } = lostSeat();
  const journal = openJournal(journalPath(home));
  try {
    const results = await Promise.allSettled([
      restoreSeat(journal, home, seatId, env),
      restoreSeat(journal, home, seatId, env),
    ]);
    const codes = results
      .map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : "restored"))
      .sort();
    assert.deepEqual(codes, ["GROK_NOT_FOUND", "SEAT_RESTORE_CONFLICT"]);
    assert.equal(controllerRuns(home, seatId), 1, "one controller was launched");
    // The refused restore handed the seat back: it is lost again, on its old socket path, and may be retried.
    assert.equal(journal.getSeat(seatId)!.socketPath, OLD_SOCKET);
    assert.deepEqual(await isSeatLost(journal, home, seatId), { lost: true });
  } finally {
    journal.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a seat claimed by a restorer that still runs is not lost (seat ps, seat restore); a dead restorer's claim is", async () => {
  const { home, seatId, env } = lostSeat();
  const journal = openJournal(journalPath(home));
  try {
    const self = await platformIdentitySource().readIdentity(process.pid);
    assert.ok(self);
    journal.reopenSeat(
      seatId,
      { socketPath: OLD_SOCKET },
      { socketPath: claimSocketPath(OLD_SOCKET, { pid: process.pid, birth: self.birth }) },
    );
    const live = await isSeatLost(journal, home, seatId);
    assert.equal(live.lost, false);
    assert.match((live as { why: string }).why, new RegExp(`another seat restore \\(pid ${process.pid}\\)`));
    const listed = (await listLive({ home })).find((item) => item.id === seatId);
    assert.notEqual(listed?.state, "lost");
    await assert.rejects(restoreSeat(journal, home, seatId, env), { code: "SEAT_NOT_LOST" });

    // kill -9 of the restorer after its claim: the claim names a process that is gone, so the seat is lost again.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
    const current = journal.getSeat(seatId)!.socketPath;
    assert.ok(
      journal.reopenSeat(
        seatId,
        { socketPath: current },
        { socketPath: claimSocketPath(current, { pid: dead, birth: "0" }) },
      ),
    );
    assert.equal((await listLive({ home })).find((item) => item.id === seatId)?.state, "lost");
    await assert.rejects(restoreSeat(journal, home, seatId, env), { code: "GROK_NOT_FOUND" });
    assert.equal(
      journal.getSeat(seatId)!.socketPath,
      OLD_SOCKET,
      "the claim never stacks: the old socket path is kept",
    );
  } finally {
    journal.close();
    rmSync(home, { recursive: true, force: true });
  }
});

test("a seat hired with a secret variable is not restored from a shell without it: SEAT_RESTORE_ENV_MISSING, nothing launched", async () => {
  const { home, seatId, env } = lostSeat();
  const hirePath = join(seatDir(home, seatId), "hire.json");
  writeFileSync(
    hirePath,
    JSON.stringify({ ...JSON.parse(readFileSync(hirePath, "utf8")), secretEnvNames: ["GS_TEST_RESTORE_KEY"] }),
    { mode: 0o600 },
  );
  const journal = openJournal(journalPath(home));
  try {
    await assert.rejects(restoreSeat(journal, home, seatId, env), (error: { code?: string; message?: string }) => {
      assert.equal(error.code, "SEAT_RESTORE_ENV_MISSING");
      assert.match(error.message ?? "", /GS_TEST_RESTORE_KEY/);
      return true;
    });
    assert.equal(journal.getSeat(seatId)!.socketPath, OLD_SOCKET, "the seat was not claimed");
    assert.throws(
      () => readFileSync(join(seatDir(home, seatId), "controller.log")),
      { code: "ENOENT" },
      "no controller was launched",
    );
    // With the variable set, the restore goes ahead (and here refuses only for the missing grok binary).
    await assert.rejects(
      restoreSeat(journal, home, seatId, { ...env, GS_TEST_RESTORE_KEY: "canary-restore-key-value" }),
      { code: "GROK_NOT_FOUND" },
    );
  } finally {
    journal.close();
    rmSync(home, { recursive: true, force: true });
  }
});
