/*
 * The re-proof before every dispatch (issue 14 §8): after one full proof the seat re-proves its leader from a
 * seal (a few reads of the leader's own /proc entries, its lock and socket file), and every change an attacker or
 * a replaced leader makes still refuses the brief before it is sent. Fake grok TUI in real tmux.
 */
import { afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { hireSeat, reproveForDispatch, type VisibleSeat } from "../../../src/seat/index.js";
import { killEverything, options, tmuxWorld, type World } from "./seat-world.js";

let tmuxOk = false;
before(async () => {
  tmuxOk = await isTmuxAvailable();
});

const prompts = (w: World): string[] => {
  const file = join(w.grokHome, "fake-leader-prompts.log");
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean) : [];
};

async function sendOk(seat: VisibleSeat, promptId: string): Promise<void> {
  const d = await seat.deliver(`brief ${promptId}`, { promptId });
  assert.equal((await seat.waitFor(d.promptId, ["completed"], 10_000))?.state, "completed");
}

async function refused(w: World, seat: VisibleSeat, promptId: string, codes: string[]): Promise<void> {
  const before = prompts(w).length;
  await assert.rejects(seat.deliver(`brief ${promptId}`, { promptId }), (e: unknown) =>
    codes.includes((e as { code?: string }).code ?? ""),
  );
  assert.equal(w.journal.getDelivery(promptId)?.state, "failed");
  assert.equal(prompts(w).length, before, "nothing reached the leader");
}

describe("re-proof before dispatch from the leader's seal (fake TUI in real tmux)", { concurrency: false }, () => {
  let w: World;
  afterEach(async () => {
    if (w) await killEverything(w);
  });

  test("decides later dispatches from the seal, yet refuses each replaced socket, lock, directory or symlink swap before sending, and re-seals once restored", async (t) => {
    const made = tmuxWorld(t, tmuxOk);
    if (!made) return;
    w = made.w;
    const seat = await hireSeat(options(w, { turn: { queueDelayMs: 0, resultDelayMs: 0 } }));
    const { socketPath, socketDir, pid } = seat.parts.leader;
    await sendOk(seat, "dp-1");
    await sendOk(seat, "dp-2");
    assert.deepEqual(
      seat.dispatchProofs,
      { seal: 1, full: 1 },
      "the first dispatch ran the full proof, the second the seal",
    );

    // Another listener at the path (the real one moved aside): a new socket file and another socket inode.
    const aside = `${socketPath}.aside`;
    renameSync(socketPath, aside);
    const impostor: Server = createServer(() => {});
    await new Promise<void>((r) => impostor.listen(socketPath, () => r()));
    await refused(w, seat, "dp-imp", ["IDENTITY_MISMATCH"]);
    await new Promise<void>((r) => impostor.close(() => r()));
    rmSync(socketPath, { force: true });

    // The path is a symlink to the real (moved) socket.
    symlinkSync(aside, socketPath);
    await refused(w, seat, "dp-link", ["IDENTITY_MISMATCH"]);
    rmSync(socketPath);
    renameSync(aside, socketPath);

    // The lock names another pid.
    const lock = `${socketPath}.lock`;
    writeFileSync(lock, String(process.pid));
    await refused(w, seat, "dp-lock", ["IDENTITY_MISMATCH"]);
    writeFileSync(lock, String(pid));

    // The private directory is opened up.
    chmodSync(socketDir, 0o755);
    await refused(w, seat, "dp-dir", ["IDENTITY_MISMATCH"]);
    chmodSync(socketDir, 0o700);

    const full = seat.dispatchProofs.full;
    await sendOk(seat, "dp-3");
    await sendOk(seat, "dp-4");
    assert.deepEqual(
      seat.dispatchProofs,
      { seal: 2, full: full + 1 },
      "restored: one full proof re-seals, the next dispatch is quick again",
    );
    assert.deepEqual(prompts(w), ["dp-1", "dp-2", "dp-3", "dp-4"]);

    // A seal speaks only for the binding it was proven for: another expected exe or uid runs the full proof.
    const { leader, tui } = seat.parts;
    const clean = await reproveForDispatch(leader, tui.pid, null, leader.socketInode);
    assert.ok(clean.seal, "a clean full proof seals");
    assert.equal((await reproveForDispatch(leader, tui.pid, clean.seal, leader.socketInode)).path, "seal");
    for (const other of [
      { ...leader, exe: "/bin/sh" },
      { ...leader, uid: leader.uid + 1 },
    ]) {
      const r = await reproveForDispatch(other, tui.pid, clean.seal, leader.socketInode);
      assert.equal(r.path, "full");
      assert.equal(r.result.verdict, "mismatch");
    }
  });

  test("refuses a dispatch once the leader was replaced by another process serving the same path (pid and birth differ)", async (t) => {
    const made = tmuxWorld(t, tmuxOk);
    if (!made) return;
    w = made.w;
    const seat = await hireSeat(options(w, { turn: { queueDelayMs: 0, resultDelayMs: 0 } }));
    await sendOk(seat, "rp-1");
    await sendOk(seat, "rp-2");
    const { socketPath, pid } = seat.parts.leader;
    // The connection stays open to the old leader while another process takes over the path and the lock.
    renameSync(socketPath, `${socketPath}.old`);
    const impostor: Server = createServer(() => {});
    await new Promise<void>((r) => impostor.listen(socketPath, () => r()));
    writeFileSync(`${socketPath}.lock`, String(process.pid));
    try {
      await refused(w, seat, "rp-3", ["IDENTITY_MISMATCH", "IDENTITY_UNKNOWN"]);
    } finally {
      await new Promise<void>((r) => impostor.close(() => r()));
      // The teardown kills whatever the lock names: give it back to the real leader.
      writeFileSync(`${socketPath}.lock`, String(pid));
    }
    assert.ok(pid !== process.pid);
    assert.deepEqual(prompts(w), ["rp-1", "rp-2"]);
  });
});
