// The snapshot identity source against real processes: a child node process listens on several unix sockets;
// the snapshot's socket-holder verdicts equal linuxSource's for each (held, held by another pid, nothing
// listening, a pid that is gone), and a socket bound after the snapshot read its holder is left out (mismatch).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linuxSource, snapshotIdentitySource } from "../../../src/identity/index.js";
import { need } from "../../support/requirements.js";

const MISSING = process.platform !== "linux" || !existsSync("/proc/net/unix") ? "needs Linux /proc" : false;

// Listens on every path given, then says "ready"; a line "bind PATH" on stdin makes it listen on one more.
const HOLDER = `
const net = require("node:net");
let left = process.argv.length - 1;
for (const path of process.argv.slice(1)) net.createServer(() => {}).listen(path, () => { if (--left === 0) process.stdout.write("ready\\n"); });
process.stdin.on("data", (d) => { const path = d.toString().trim().replace(/^bind /, ""); net.createServer(() => {}).listen(path, () => process.stdout.write("bound\\n")); });
`;

async function startHolder(paths: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["-e", HOLDER, ...paths], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`holder exited early (${code})`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

test("a snapshot source gives linuxSource's socket-holder verdicts: held sockets, another pid's, nothing listening, a gone pid", async (t) => {
  if (!need(t, MISSING)) return;
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-snapshot-")));
  const paths = [0, 1, 2].map((i) => join(root, `s${i}.sock`));
  const holder = await startHolder(paths);
  const ours: Server = createServer(() => {});
  const ourPath = join(root, "ours.sock");
  await new Promise<void>((resolve) => ours.listen(ourPath, resolve));
  try {
    const pid = holder.pid!;
    const cases: Array<[number, string]> = [
      ...paths.map((p): [number, string] => [pid, p]),
      [pid, ourPath],
      [process.pid, paths[0]!],
      [pid, join(root, "nothing.sock")],
    ];
    const snapshot = snapshotIdentitySource();
    const verdicts = await Promise.all(
      cases.map(async ([p, path]) => [
        (await snapshot.checkSocketHolder(p, path)).check.verdict,
        (await linuxSource.checkSocketHolder(p, path)).check.verdict,
      ]),
    );
    assert.deepEqual(
      verdicts.map(([snap]) => snap),
      ["match", "match", "match", "mismatch", "mismatch", "mismatch"],
    );
    assert.deepEqual(
      verdicts.map(([snap]) => snap),
      verdicts.map(([, fresh]) => fresh),
      "the same verdicts as reading afresh",
    );
    const held = await snapshot.checkSocketHolder(pid, paths[1]!);
    assert.equal(typeof held.inode, "number", "the listening inode is reported as linuxSource reports it");
    await stop(holder);
    const gone = snapshotIdentitySource();
    assert.equal(
      (await gone.checkSocketHolder(pid, paths[0]!)).check.verdict,
      "mismatch",
      "a pid that is gone holds nothing",
    );
  } finally {
    await stop(holder);
    await new Promise<void>((resolve) => ours.close(() => resolve()));
    rmSync(root, { recursive: true, force: true });
  }
});

test("a snapshot never reports what it did not see: a socket bound after it read the holder's fd table is a mismatch there, a match in a new snapshot", async (t) => {
  if (!need(t, MISSING)) return;
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-snapshot-")));
  const first = join(root, "first.sock");
  const later = join(root, "later.sock");
  const holder = await startHolder([first]);
  try {
    const pid = holder.pid!;
    const snapshot = snapshotIdentitySource();
    assert.equal((await snapshot.checkSocketHolder(pid, first)).check.verdict, "match");
    const bound = new Promise<void>((resolve) =>
      holder.stdout!.on("data", (d: Buffer) => d.toString().includes("bound") && resolve()),
    );
    holder.stdin!.write(`bind ${later}\n`);
    await bound;
    assert.equal(
      (await snapshot.checkSocketHolder(pid, later)).check.verdict,
      "mismatch",
      "the old snapshot did not see it",
    );
    assert.equal(
      (await snapshotIdentitySource().checkSocketHolder(pid, later)).check.verdict,
      "match",
      "a new snapshot does",
    );
    assert.equal((await linuxSource.checkSocketHolder(pid, later)).check.verdict, "match");
  } finally {
    await stop(holder);
    rmSync(root, { recursive: true, force: true });
  }
});
