import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../errors.js";
import {
  execFileRunner,
  LSOF_PATH,
  macosSource,
  PS_COLUMNS,
  PS_PATH,
  type CommandResult,
  type CommandRunner,
} from "./macos-source.js";
import { proveLeader, reproveIdentity, type ProveLeaderInput } from "./prove.js";
import { linuxSource, platformIdentitySource } from "./source.js";
import { assertMatch } from "./verdict.js";

// HAND-WRITTEN SAMPLES of the documented formats, NOT recorded on a Mac (none is available here):
// ps(1) with `=` headers suppressed and C-locale lstart, lsof(8) -F field output (p, f, n lines).
// The uid and the socket path are substituted at run time so the platform-neutral socket-file checks,
// which examine a real socket in this test's temp dir, can match. Re-record these on a Mac.
const LEADER = 4250;
const TUI = 4242;
const UID = process.getuid!();
const EXE = "/opt/homebrew/Cellar/grok/1.0.50/bin/grok";
const CWD = "/Users/dev/project";
const BIRTH = "2026-11-29T22:58:07";
const psLine = (o: { ruid?: number; uid?: number; lstart?: string; tty?: string } = {}) =>
  `  ${LEADER}  ${TUI}   ${o.ruid ?? UID}   ${o.uid ?? UID} ${o.lstart ?? "Sat Nov 29 22:58:07 2026"}     ${o.tty ?? "??"}       /opt/homebrew/bin/grok\n`;
const lsofFiles = (o: { cwd?: string; exe?: string } = {}) =>
  `p${LEADER}\nfcwd\nn${o.cwd ?? CWD}\nftxt\nn${o.exe ?? EXE}\nftxt\nn/usr/lib/dyld\n`;
const lsofUnix = (path: string) => `p${LEADER}\nf3\nn/private${path}\nf7\nn->0x8f1c2d3e4b5a6978\n`;

const ok = (stdout: string): CommandResult => ({
  stdout,
  stderr: "",
  exitCode: 0,
  signal: null,
  timedOut: false,
  spawnError: null,
});
const NOTHING: CommandResult = { stdout: "", stderr: "", exitCode: 1, signal: null, timedOut: false, spawnError: null };
const TIMED_OUT: CommandResult = {
  stdout: "",
  stderr: "",
  exitCode: null,
  signal: "SIGKILL",
  timedOut: true,
  spawnError: null,
};
const FAILED: CommandResult = {
  stdout: "",
  stderr: "lsof: WARNING: can't stat() vfs file system /Volumes/x\nlsof: no permission\n",
  exitCode: 2,
  signal: null,
  timedOut: false,
  spawnError: null,
};

type Replies = { ps?: CommandResult; files?: CommandResult; unix?: CommandResult };
interface Call {
  file: string;
  args: readonly string[];
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/** Replays one recorded result per command, keyed by what the argv asks for; records every call. */
function replay(replies: Replies, calls: Call[] = []): CommandRunner {
  return async (file, args, { timeoutMs, env }) => {
    calls.push({ file, args, timeoutMs, env });
    if (file === PS_PATH) return replies.ps ?? ok(psLine());
    if (file === LSOF_PATH && args.includes("-U")) return replies.unix ?? ok(lsofUnix(socketPath));
    if (file === LSOF_PATH) return replies.files ?? ok(lsofFiles());
    throw new Error(`unexpected command ${file}`);
  };
}

let root: string;
let socketDir: string;
let socketPath: string;
let server: Server;

before(async () => {
  root = await mkdtemp(join(tmpdir(), "gs-macsrc-"));
  socketDir = join(root, "s");
  await mkdir(socketDir, { mode: 0o700 });
  socketPath = join(socketDir, "leader.sock");
  server = createServer();
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  await writeFile(join(socketDir, "leader.lock"), `${LEADER}\n`);
});

after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
});

const input = (expected: Partial<ProveLeaderInput["expected"]> = {}): ProveLeaderInput => ({
  pid: LEADER,
  socketPath,
  socketDir,
  expected: { exe: EXE, cwd: CWD, uid: UID, birth: BIRTH, ...expected },
});

test("proves a macOS leader from replayed ps and lsof output: seconds birth, lsof txt exe, cwd, uid, euid, socket held", async () => {
  const calls: Call[] = [];
  const proof = await proveLeader(input(), macosSource(replay({}, calls), { timeoutMs: 1234 }));
  assert.equal(proof.verdict, "match", proof.reasons.join("; "));
  assert.deepEqual(
    proof.checks.map((c) => c.name),
    ["lock", "birth", "exe", "cwd", "uid", "euid", "socket-holder", "socket-file", "socket-dir"],
  );
  assert.equal(proof.observed?.birthResolution, "seconds");
  assert.equal(proof.observed?.exe, EXE, "exe is lsof's txt path, not ps comm (/opt/homebrew/bin/grok)");
  assert.equal(proof.observed?.ppid, TUI);
  assert.equal(proof.socketInode, null);
  // No shell: absolute tool paths, argv arrays, a timeout on every call, C locale and UTC for lstart.
  assert.deepEqual(
    calls.map((c) => [c.file, ...c.args].join(" ")).sort(),
    [
      `${PS_PATH} -o ${PS_COLUMNS} -p ${LEADER}`,
      `${LSOF_PATH} -n -P -w -a -p ${LEADER} -U -Fn`,
      `${LSOF_PATH} -n -P -w -a -p ${LEADER} -d cwd,txt -Fn`,
    ].sort(),
  );
  for (const call of calls) assert.deepEqual([call.timeoutMs, call.env.TZ, call.env.LC_ALL], [1234, "UTC", "C"]);
});

test("maps ps and lsof into the shared ProcessIdentity shape, with null for what macOS does not report", async () => {
  const id = await macosSource(replay({ ps: ok(psLine({ ruid: 501, uid: 0, tty: "ttys003" })) })).readIdentity(LEADER);
  assert.deepEqual(id, {
    pid: LEADER,
    ppid: TUI,
    pgid: null,
    sid: null,
    comm: "/opt/homebrew/bin/grok",
    birth: BIRTH,
    birthResolution: "seconds",
    startedAtMs: Date.UTC(2026, 10, 29, 22, 58, 7),
    exe: EXE,
    cwd: CWD,
    uid: { real: 501, effective: 0 },
    ttyNr: null,
    tty: "/dev/ttys003",
  });
});

const MISMATCHES: Array<[string, Replies, RegExp]> = [
  [
    "birth",
    { ps: ok(psLine({ lstart: "Sat Nov 29 22:58:08 2026" })) },
    /^birth: expected 2026-11-29T22:58:07, found 2026-11-29T22:58:08$/,
  ],
  [
    "exe",
    { files: ok(lsofFiles({ exe: "/usr/local/bin/not-grok" })) },
    /^exe: expected .*grok, found \/usr\/local\/bin\/not-grok$/,
  ],
  [
    "cwd",
    { files: ok(lsofFiles({ cwd: "/Users/dev/elsewhere" })) },
    /^cwd: expected \/Users\/dev\/project, found \/Users\/dev\/elsewhere$/,
  ],
  ["uid", { ps: ok(psLine({ ruid: UID + 1 })) }, /^uid: expected \d+, found \d+$/],
  ["euid", { ps: ok(psLine({ uid: UID + 1 })) }, /^euid: expected \d+, found \d+$/],
  [
    "socket-holder",
    { unix: ok(lsofUnix("/tmp/some-other/leader.sock")) },
    /^socket-holder: pid 4250 holds 2 unix socket\(s\), none bound at /,
  ],
  ["socket-holder", { unix: NOTHING }, /^socket-holder: lsof lists no unix socket for pid 4250/],
];

for (const [name, replies, reason] of MISMATCHES) {
  const how = replies.unix === NOTHING ? " (lsof lists no unix socket at all)" : "";
  test(`a differing ${name}${how} makes the macOS proof a mismatch whose reason names it`, async () => {
    const proof = await proveLeader(input(), macosSource(replay(replies)));
    assert.equal(proof.verdict, "mismatch");
    const failing = proof.checks.filter((c) => c.verdict !== "match");
    assert.deepEqual(
      failing.map((c) => [c.name, c.verdict]),
      [[name, "mismatch"]],
    );
    assert.match(failing[0]!.reason, reason);
  });
}

test("a pid ps does not list (exit 1, no output) is a missing process: mismatch", async () => {
  const proof = await proveLeader(input(), macosSource(replay({ ps: NOTHING })));
  assert.equal(proof.verdict, "mismatch");
  assert.match(proof.reasons.join("\n"), /process: no process with pid 4250 exists/);
});

const UNKNOWNS: Array<[string, Replies, string, RegExp]> = [
  [
    "ps times out",
    { ps: TIMED_OUT },
    "process",
    /ps could not report pid 4250: `\/bin\/ps .*` timed out after 5000 ms/,
  ],
  [
    "ps cannot start",
    { ps: { ...NOTHING, exitCode: null, spawnError: "ENOENT" } },
    "process",
    /could not run \(ENOENT\)/,
  ],
  ["ps prints a line in another format", { ps: ok("  4250 grok\n") }, "process", /does not fit/],
  ["lsof -U times out", { unix: TIMED_OUT }, "socket-holder", /timed out after 5000 ms/],
  ["lsof -U fails", { unix: FAILED }, "socket-holder", /exited 2: .*no permission/],
];

for (const [what, replies, name, reason] of UNKNOWNS) {
  test(`when ${what} the proof is unknown, and unknown never authorizes`, async () => {
    const proof = await proveLeader(input(), macosSource(replay(replies)));
    assert.equal(proof.verdict, "unknown");
    const failing = proof.checks.filter((c) => c.verdict !== "match");
    assert.deepEqual(
      failing.map((c) => [c.name, c.verdict]),
      [[name, "unknown"]],
    );
    assert.match(failing[0]!.reason, reason);
    assert.throws(
      () => assertMatch(proof, "leader"),
      (err: unknown) => isSeatError(err, "IDENTITY_UNKNOWN"),
    );
  });
}

test("a failed lsof for cwd and txt leaves exe and cwd null, which compare as unknown, never match", async () => {
  const proof = await proveLeader(input(), macosSource(replay({ files: FAILED })));
  assert.equal(proof.verdict, "unknown");
  assert.deepEqual(
    proof.checks.filter((c) => c.verdict !== "match").map((c) => c.name),
    ["exe", "cwd"],
  );
  assert.equal(proof.observed?.exe, null);
});

test("reproves a bound macOS process: match, a reused pid with another birth, and an unreadable one", async () => {
  const bound = { pid: LEADER, birth: BIRTH, exe: EXE, cwd: CWD, uid: UID };
  assert.equal((await reproveIdentity(bound, macosSource(replay({})))).verdict, "match");
  const reused = await reproveIdentity(
    bound,
    macosSource(replay({ ps: ok(psLine({ lstart: "Sun Nov 30 01:00:00 2026" })) })),
  );
  assert.equal(reused.verdict, "mismatch");
  assert.equal((await reproveIdentity(bound, macosSource(replay({ ps: NOTHING })))).verdict, "mismatch");
  assert.equal((await reproveIdentity(bound, macosSource(replay({ ps: TIMED_OUT })))).verdict, "unknown");
});

test("picks macOS ps/lsof on darwin and /proc everywhere else", () => {
  assert.equal(platformIdentitySource("darwin").platform, "darwin");
  assert.equal(platformIdentitySource("linux"), linuxSource);
});

test("the execFile runner reports exit status, a timeout kill and a missing binary without rejecting", async () => {
  const env = { ...process.env };
  const exited = await execFileRunner(
    process.execPath,
    ["-e", "process.stdout.write('out'); process.stderr.write('err'); process.exit(3)"],
    { timeoutMs: 10_000, env },
  );
  assert.deepEqual(exited, {
    stdout: "out",
    stderr: "err",
    exitCode: 3,
    signal: null,
    timedOut: false,
    spawnError: null,
  });
  const slow = await execFileRunner(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { timeoutMs: 200, env });
  assert.deepEqual([slow.timedOut, slow.signal, slow.exitCode], [true, "SIGKILL", null]);
  const missing = await execFileRunner(join(root, "no-such-binary"), [], { timeoutMs: 1000, env });
  assert.equal(missing.spawnError, "ENOENT");
});
