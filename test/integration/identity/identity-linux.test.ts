// Linux identity proof against real processes: a child node process plays the leader, listening on a
// private socket in a 0700 temp dir with a lock file holding its pid. Skips (saying why) off Linux.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  mkdtempSync,
  mkdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  compareIdentity,
  proveLeader,
  readProcessIdentity,
  socketHolderPids,
  socketListenerInodes,
  pidHoldsSocket,
  type ProveLeaderInput,
} from "../../../src/identity/index.js";
import { need } from "../../support/requirements.js";

const skip = process.platform !== "linux" || !existsSync("/proc/net/unix") ? "needs Linux /proc" : false;

let root = "";
let socketDir = "";
let socketPath = "";
let cwd = "";
let leader: ChildProcess | null = null;
const uid = process.getuid?.() ?? -1;

// The child chdirs to `cwd`, renames itself with a hostile comm, listens, writes the lock, then says "ready".
const LEADER_SCRIPT = `
const net = require("node:net"); const fs = require("node:fs");
const [sock, lock, dir] = process.argv.slice(1);
process.chdir(dir);
process.title = "le) der (x";
const server = net.createServer(() => {});
server.listen(sock, () => { fs.writeFileSync(lock, String(process.pid)); process.stdout.write("ready\\n"); });
setInterval(() => {}, 1000);
`;

before(async () => {
  if (skip) return;
  root = realpathSync(mkdtempSync(join(tmpdir(), "gs-identity-")));
  socketDir = join(root, "sock");
  mkdirSync(socketDir, { mode: 0o700 });
  chmodSync(socketDir, 0o700);
  cwd = join(root, "project");
  mkdirSync(cwd);
  socketPath = join(socketDir, "s");
  leader = spawn(process.execPath, ["-e", LEADER_SCRIPT, socketPath, join(socketDir, "s.lock"), cwd], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    leader!.stdout!.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    leader!.once("exit", (code) => reject(new Error(`fake leader exited early (${code})`)));
  });
});

after(async () => {
  if (leader && leader.exitCode === null && leader.signalCode === null) {
    const exited = new Promise((r) => leader!.once("exit", r));
    leader.kill("SIGKILL");
    await exited;
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

function input(
  overrides: Partial<ProveLeaderInput> = {},
  expected: Partial<ProveLeaderInput["expected"]> = {},
): ProveLeaderInput {
  return {
    pid: leader!.pid!,
    expected: { exe: process.execPath, cwd, uid, ...expected },
    socketPath,
    socketDir,
    ...overrides,
  };
}

test("reads a live process's identity from /proc, including a comm with spaces and parentheses", async (t) => {
  if (!need(t, skip)) return;
  const id = (await readProcessIdentity(leader!.pid!))!;
  assert.equal(id.comm, "le) der (x");
  assert.equal(id.ppid, process.pid);
  assert.equal(id.exe, realpathSync(process.execPath));
  assert.equal(id.cwd, cwd);
  assert.deepEqual(id.uid, { real: uid, effective: uid });
  assert.match(id.birth, /^\d+$/);
  assert.equal(id.birthResolution, "clock-ticks");
  assert.ok(
    id.startedAtMs !== null && Math.abs(id.startedAtMs - Date.now()) < 24 * 3600 * 1000,
    "wall-clock start is within a day of now",
  );
});

test("reports no identity for a pid that does not exist", async (t) => {
  if (!need(t, skip)) return;
  assert.equal(await readProcessIdentity(2 ** 22 + 12345), null);
});

test("finds the listening socket inode from /proc/net/unix and its holder from the fd table", async (t) => {
  if (!need(t, skip)) return;
  const inodes = await socketListenerInodes(socketPath);
  assert.equal(inodes.length, 1);
  assert.equal(await pidHoldsSocket(leader!.pid!, inodes[0]!), "match");
  assert.equal(await pidHoldsSocket(process.pid, inodes[0]!), "mismatch");
  assert.deepEqual(await socketHolderPids(inodes[0]!), [leader!.pid!]);
});

test("proves the leader when lock, kernel facts, socket holder, socket file and private dir all agree", async (t) => {
  if (!need(t, skip)) return;
  const proof = await proveLeader(input());
  assert.equal(proof.verdict, "match", proof.reasons.join("; "));
  assert.deepEqual(proof.reasons, []);
  const birth = proof.observed!.birth;
  const again = await proveLeader(input({}, { birth }));
  assert.equal(again.verdict, "match");
  assert.ok(again.checks.some((c) => c.name === "birth" && c.verdict === "match"));
});

test("refuses a pid that is not the lock holder and does not hold the socket", async (t) => {
  if (!need(t, skip)) return;
  const proof = await proveLeader(input({ pid: process.pid }));
  assert.equal(proof.verdict, "mismatch");
  assert.ok(proof.reasons.some((r) => r.startsWith("lock:")));
  assert.ok(proof.reasons.some((r) => r.startsWith("socket-holder:")));
});

test("refuses a different birth time, executable, cwd or uid with a reason for each", async (t) => {
  if (!need(t, skip)) return;
  const proof = await proveLeader(input({}, { birth: "1", exe: "/bin/sh", cwd: root, uid: uid + 1 }));
  assert.equal(proof.verdict, "mismatch");
  for (const name of ["birth", "exe", "cwd", "uid", "euid", "socket-file", "socket-dir"]) {
    assert.ok(
      proof.checks.some((c) => c.name === name && c.verdict === "mismatch"),
      `${name} mismatch: ${proof.reasons.join("; ")}`,
    );
  }
});

test("is unknown, not a match, when the lock file is missing", async (t) => {
  if (!need(t, skip)) return;
  const proof = await proveLeader(input({ lockPath: join(socketDir, "absent.lock") }));
  assert.equal(proof.verdict, "unknown");
  assert.deepEqual(proof.reasons.length, 1);
  assert.match(proof.reasons[0]!, /^lock:/);
});

test("refuses a socket directory that is not 0700", async (t) => {
  if (!need(t, skip)) return;
  chmodSync(socketDir, 0o755);
  try {
    const proof = await proveLeader(input());
    assert.equal(proof.verdict, "mismatch");
    assert.ok(proof.reasons.some((r) => /mode 0755, not 0700/.test(r)));
  } finally {
    chmodSync(socketDir, 0o700);
  }
});

test("refuses a socket path that is a symlink to the real socket", async (t) => {
  if (!need(t, skip)) return;
  const linkDir = join(root, "links");
  mkdirSync(linkDir, { mode: 0o700 });
  const link = join(linkDir, "s");
  symlinkSync(socketPath, link);
  writeFileSync(join(linkDir, "s.lock"), String(leader!.pid));
  const proof = await proveLeader(input({ socketPath: link, socketDir: linkDir }));
  assert.equal(proof.verdict, "mismatch");
  assert.ok(proof.reasons.some((r) => /is a symlink/.test(r)));
  assert.ok(
    proof.reasons.some((r) => /nothing listens on/.test(r)),
    "the listener is bound at the real path, not the link",
  );
});

test("sees a reused pid with another birth time as a mismatch and a gone process as a mismatch", async (t) => {
  if (!need(t, skip)) return;
  const current = await readProcessIdentity(leader!.pid!);
  const bound = { pid: current!.pid, birth: current!.birth, exe: current!.exe, cwd: current!.cwd, uid };
  assert.equal(compareIdentity(bound, current).verdict, "match");
  const reused = compareIdentity({ ...bound, birth: String(Number(current!.birth) - 100) }, current);
  assert.equal(reused.verdict, "mismatch");
  assert.match(reused.reasons.join(";"), /birth/);
  assert.equal(compareIdentity(bound, null).verdict, "mismatch");
});

test("refuses the leader once its process has exited", async (t) => {
  if (!need(t, skip)) return;
  const pid = leader!.pid!;
  const exited = new Promise((r) => leader!.once("exit", r));
  leader!.kill("SIGKILL");
  await exited;
  const proof = await proveLeader(input({ pid }));
  assert.equal(proof.verdict, "mismatch");
  assert.ok(proof.reasons.some((r) => /no process with pid/.test(r)));
});
