/*
 * R3 visible-seat identity / socket attacks: foreign owner, symlink swap, replaced inode, reused pid (another
 *   birth), other executable / cwd, contradictory Herdr fields — each must be refused, with its reason.
 * Owns: runSeatAttacks(): per attack kind, variants tried, refused, and every acceptance or reasonless refusal.
 * Does not own: the proof under test (src/seat proof + release, src/identity, src/mux checkHerdrAgent) or the
 *   fakes (test/integration/seat-fake-tui.ts in real tmux, test/fakes/herdr-sim.ts).
 * Method: (1) hire-time: hireSeat on a fake TUI whose leader runs another exe / cwd or serves a symlinked
 *   socket, and Herdr-simulator hires whose agent report contradicts the launch; (2) after a clean hire whose
 *   TUI then exits (the leader outlives it), each variant mutates the world or the binding, then both gates —
 *   the leader re-proof and the release that would signal it — must refuse, the leader must still run, and the
 *   world is restored; a clean re-proof before each variant and a clean release at the end are the controls
 *   that keep the refusals from being vacuous; (3) Herdr pane infos generated against checkHerdrAgent.
 *   This run is unprivileged, so a foreign owner is the seat bound to another uid (the check compares the
 *   socket's and directory's owner with the seat's uid) and a socket directory opened to others (mode ≠ 0700).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isSeatError, messageOf } from "../src/errors.js";
import { openJournal, type Journal } from "../src/journal/index.js";
import { HerdrBackend, TmuxBackend, checkHerdrAgent, type Backend, type PaneDescriptor } from "../src/mux/index.js";
import { hireSeat, proveSeatLeader, reproveTui, stopLeaderAfterTuiExit, waitForExitObserved, type HireSeatOptions, type LeaderBinding, type TuiProof } from "../src/seat/index.js";
import { startHerdrSim } from "../test/fakes/herdr-sim.js";

/** The attack kinds of R3. */
export const ATTACK_KINDS = ["foreign-owner", "symlink-swap", "replaced-inode", "reused-pid", "other-exe-cwd", "herdr-contradictory"] as const;
/** One attack kind. */
export type AttackKind = (typeof ATTACK_KINDS)[number];

/** What a refusal's reason must name, per kind. */
const REASON: Record<AttackKind, RegExp> = {
  "foreign-owner": /uid|owned by|mode/,
  "symlink-swap": /symlink/,
  "replaced-inode": /socket-holder|socket-file|not a socket|listening|nothing listens/,
  "reused-pid": /birth|already exited|no longer exists/,
  "other-exe-cwd": /exe|cwd/,
  "herdr-contradictory": /.+/,
};

/** Figures for one attack kind. */
export interface AttackKindResult {
  kind: AttackKind;
  tried: number;
  refused: number;
  /** Variants accepted, or refused without the reason naming the attack. */
  failures: string[];
  /** A few distinct refusal reasons, as evidence. */
  reasons: string[];
}

/** The R3 result. */
export interface SeatAttackResult {
  kinds: AttackKindResult[];
  tried: number;
  refused: number;
  failures: number;
  /** Clean proofs / releases that had to pass for the refusals to mean anything. */
  controls: { tried: number; passed: number; failures: string[] };
  skipped: string | null;
}

const DIST = join(fileURLToPath(import.meta.url), "..", "..");
const FAKE_TUI = join(DIST, "test", "integration", "seat-fake-tui.js");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface World { root: string; project: string; env: Record<string, string>; journal: Journal }

function makeWorld(): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-r3-")));
  const home = join(root, "h");
  const project = join(root, "p");
  for (const d of [home, join(home, ".grok"), project]) mkdirSync(d, { recursive: true, mode: 0o700 });
  return { root, project, env: { HOME: home, GROK_HOME: join(home, ".grok"), PATH: process.env.PATH ?? "/usr/bin:/bin" }, journal: openJournal(join(root, "seats.db")) };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch { return false; }
}

function hireOptions(w: World, backend: Backend, config: Record<string, unknown> = {}, extra: Partial<HireSeatOptions> = {}): HireSeatOptions {
  return {
    grokBinary: process.execPath, binaryArgs: [FAKE_TUI, "--gs-config", JSON.stringify(config)], cwd: w.project, mux: backend.name, backend, journal: w.journal,
    env: w.env, versionFloor: "1.0.41", readyTimeoutMs: 10_000, requestTimeoutMs: 5000, ...extra,
  };
}

/** Kills every TUI and leader the world's journal names, removes their socket dirs, then the world. */
async function teardown(w: World): Promise<void> {
  const pids: number[] = [];
  for (const seat of w.journal.listSeats({ includeReleased: true })) {
    for (const pid of [seat.tuiPid, seat.leaderPid]) if (pid) pids.push(pid);
    const lock = `${seat.socketPath}.lock`;
    if (existsSync(lock)) pids.push(Number(readFileSync(lock, "utf8")));
  }
  for (const pid of pids) if (pid > 0 && alive(pid)) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
  for (let i = 0; i < 50 && pids.some((p) => p > 0 && alive(p)); i += 1) await sleep(50);
  for (const seat of w.journal.listSeats({ includeReleased: true })) rmSync(join(seat.socketPath, ".."), { recursive: true, force: true });
  w.journal.close();
  rmSync(w.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

class Tally {
  readonly kinds = new Map<AttackKind, AttackKindResult>(ATTACK_KINDS.map((k) => [k, { kind: k, tried: 0, refused: 0, failures: [], reasons: [] }]));
  readonly controls = { tried: 0, passed: 0, failures: [] as string[] };
  /** Counts one variant: refused when `reason` is non-null and names the attack. */
  add(kind: AttackKind, variant: string, found: string | null): void {
    const k = this.kinds.get(kind)!;
    // Results are committed: no machine paths (the repo checkout, temp dirs) in the recorded reasons.
    const reason = found === null ? null : found.split(process.cwd()).join("<cwd>").replace(/\/tmp\/[\w.-]+/g, "<tmp>");
    k.tried += 1;
    if (reason !== null && REASON[kind].test(reason)) {
      k.refused += 1;
      const short = reason.slice(0, 160);
      if (k.reasons.length < 4 && !k.reasons.some((r) => r.slice(0, 40) === short.slice(0, 40))) k.reasons.push(short);
    } else k.failures.push(`${variant}: ${reason === null ? "accepted" : `refused without naming it (${reason.slice(0, 160)})`}`);
  }
  control(what: string, ok: boolean, detail = ""): void {
    this.controls.tried += 1;
    if (ok) this.controls.passed += 1;
    else this.controls.failures.push(`${what}${detail ? `: ${detail}` : ""}`);
  }
}

/** Hire-time attacks: hireSeat must refuse with an identity error naming the attack. */
async function hireAttacks(t: Tally, backend: TmuxBackend, rounds: number): Promise<void> {
  for (let i = 0; i < rounds; i += 1) {
    const w = makeWorld();
    try {
      const otherExe = join(w.root, `node-${randomBytes(3).toString("hex")}`);
      try { linkSync(process.execPath, otherExe); } catch { copyFileSync(process.execPath, otherExe); chmodSync(otherExe, 0o755); }
      const otherCwd = [w.root, "/", tmpdir(), w.env.HOME!][i % 4]!;
      const cases: Array<[AttackKind, string, Record<string, unknown>]> = [
        ["other-exe-cwd", `hire: leader cwd ${otherCwd === w.root ? "<world>" : otherCwd}`, { leaderCwd: otherCwd }],
        ["other-exe-cwd", "hire: leader runs a copy of the executable", { leaderExe: otherExe }],
        ["symlink-swap", "hire: the socket path is a symlink to the listener", { symlinkSocket: true }],
      ];
      for (const [kind, variant, config] of cases) {
        try {
          const seat = await hireSeat(hireOptions(w, backend, config));
          await seat.release({ closePane: true });
          t.add(kind, variant, null);
        } catch (error) {
          t.add(kind, variant, isSeatError(error) && /IDENTITY_/.test(error.code) ? error.message : `not an identity refusal: ${messageOf(error)}`);
        }
      }
    } finally {
      await teardown(w);
    }
  }
}

/** Herdr-simulator hires whose agent report contradicts the launched grok session. */
async function herdrHireAttacks(t: Tally, rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gs-r3h-"));
  const sim = await startHerdrSim({ socketPath: join(dir, "h.sock"), version: "0.9.0" });
  const backend = new HerdrBackend({ socketPath: sim.socketPath });
  try {
    for (let i = 0; i < rounds; i += 1) {
      const w = makeWorld();
      try {
        const reports = [
          { variant: "hire: Herdr reports agent pi", report: (_sid: string) => ({ source: "herdr:pi", agent: "pi", agent_session_id: randomUUID() }) },
          { variant: "hire: Herdr reports another grok session", report: (_sid: string) => ({ source: "herdr:grok", agent: "grok", agent_session_id: randomUUID() }) },
        ];
        for (const { variant, report } of reports) {
          try {
            const seat = await hireSeat(hireOptions(w, backend, {}, {
              readyTimeoutMs: 4000,
              onStep: (step, detail) => {
                if (step === "launched") void backend.client.reportAgent((detail as PaneDescriptor).paneId, report(""));
              },
            }));
            await seat.release({ closePane: true });
            t.add("herdr-contradictory", variant, null);
          } catch (error) {
            t.add("herdr-contradictory", variant, isSeatError(error, "HERDR_AGENT_REFUSED") ? error.message : `not HERDR_AGENT_REFUSED: ${messageOf(error)}`);
          }
        }
      } finally {
        await teardown(w);
      }
    }
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Both gates on a (mutated) binding: the re-proof and the release; null when either accepted. */
async function gates(tui: TuiProof, leader: LeaderBinding, seatId: string): Promise<string | null> {
  const { result } = await proveSeatLeader({ ...leader, tuiPid: tui.pid, birth: leader.birth, requireChildOfTui: false });
  if (result.verdict === "match") return null;
  const proofReason = result.checks.filter((c) => c.verdict !== "match").map((c) => c.reason).join("; ");
  try {
    const released = await stopLeaderAfterTuiExit({ seatId, tui, leader, exitTimeoutMs: 0 });
    if (released.leaderStopped) return null;
    return `${proofReason} | release: ${released.reason}`;
  } catch (error) {
    return isSeatError(error, "SEAT_RELEASE_REFUSED") ? `${proofReason} | release: ${error.message}` : null;
  }
}

/** Attacks on a hired seat whose TUI has exited: each variant mutates, checks both gates, restores. */
async function liveAttacks(t: Tally, backend: TmuxBackend, perKind: number): Promise<void> {
  const w = makeWorld();
  const servers: Server[] = [];
  const children: ChildProcess[] = [];
  try {
    const seat = await hireSeat(hireOptions(w, backend));
    const { tui, leader } = seat.parts;
    await seat.release();
    await backend.close(tui.pane);
    t.control("the original TUI exits when its pane closes", (await waitForExitObserved(tui, 10_000)) === "exited");
    const real = leader.socketPath;
    const aside = `${real}.aside`;
    const control = async (after: string) => {
      const { result } = await proveSeatLeader({ ...leader, tuiPid: tui.pid, birth: leader.birth, requireChildOfTui: false });
      t.control(`clean re-proof ${after}`, result.verdict === "match" && alive(leader.pid), result.checks.filter((c) => c.verdict !== "match").map((c) => c.reason).join("; "));
    };
    const attempt = async (kind: AttackKind, variant: string, mutate: () => void | Promise<void>, restore: () => void | Promise<void>, binding: LeaderBinding = leader, tuiBinding: TuiProof = tui) => {
      await mutate();
      let reason: string | null;
      try { reason = await gates(tuiBinding, binding, seat.seatId); } finally { await restore(); }
      if (!alive(leader.pid)) reason = null; // an attack that got the leader signalled was accepted
      t.add(kind, variant, reason);
      await control(`after ${variant}`);
    };
    const listen = async (path: string) => {
      const server = createServer(() => {});
      servers.push(server);
      await new Promise<void>((r) => server.listen(path, () => r()));
      return server;
    };
    const closeServer = (server: Server) => new Promise<void>((r) => server.close(() => r()));
    const me = process.getuid?.() ?? 0;
    const modes = [0o750, 0o755, 0o770, 0o777, 0o701, 0o710, 0o711, 0o705, 0o740, 0o720];
    const sleeper = spawn("sleep", ["600"], { stdio: "ignore" });
    children.push(sleeper);
    await sleep(50);
    const otherExe = join(w.root, "other-node");
    try { linkSync(process.execPath, otherExe); } catch { copyFileSync(process.execPath, otherExe); }
    for (let i = 0; i < perKind; i += 1) {
      // Foreign owner: the seat's uid differs from the socket's and directory's owner; or the directory is opened up.
      const uid = me + 1 + ((i * 7919) % 60_000);
      await attempt("foreign-owner", `socket owned by uid ${me}, seat uid ${uid}`, () => {}, () => {}, { ...leader, uid });
      const mode = modes[i % modes.length]!;
      await attempt("foreign-owner", `socket dir mode ${mode.toString(8)}`, () => chmodSync(leader.socketDir, mode), () => chmodSync(leader.socketDir, 0o700));

      // Symlink swap: the path becomes a link — to the real (moved) listener, an impostor, a file, or nothing.
      const target = [aside, `${real}.imp`, `${real}.file`, `${real}.none`, "/dev/null"][i % 5]!;
      let impostor: Server | null = null;
      await attempt("symlink-swap", `socket path → ${target.replace(leader.socketDir, "<dir>")}`, async () => {
        renameSync(real, aside);
        if (target.endsWith(".imp")) impostor = await listen(target);
        if (target.endsWith(".file")) writeFileSync(target, "x");
        symlinkSync(target, real);
      }, async () => {
        rmSync(real, { force: true });
        if (impostor) await closeServer(impostor);
        for (const p of [`${real}.imp`, `${real}.file`]) rmSync(p, { force: true });
        renameSync(aside, real);
      });

      // Replaced inode: another listener, a file, a directory or a FIFO now sits at the path.
      const what = ["listener", "file", "directory", "fifo", "listener in another process"][i % 5]!;
      let replacement: Server | null = null;
      let child: ChildProcess | null = null;
      await attempt("replaced-inode", `socket replaced by a ${what}`, async () => {
        renameSync(real, aside);
        if (what === "listener") replacement = await listen(real);
        else if (what === "file") writeFileSync(real, "");
        else if (what === "directory") mkdirSync(real);
        else if (what === "fifo") spawnSync("mkfifo", [real]);
        else {
          child = spawn(process.execPath, ["-e", `require("net").createServer().listen(${JSON.stringify(real)}, () => console.log("up"))`], { stdio: ["ignore", "pipe", "ignore"] });
          children.push(child);
          await new Promise<void>((r) => { child!.stdout!.once("data", () => r()); setTimeout(r, 3000); });
        }
      }, async () => {
        if (replacement) await closeServer(replacement);
        if (child) { child.kill("SIGKILL"); await new Promise((r) => { child!.once("exit", r); setTimeout(r, 2000); }); }
        rmSync(real, { recursive: true, force: true });
        renameSync(aside, real);
      });

      // Reused pid: the record's birth differs from the live process at that pid (the leader's or another one's).
      const birth = String(Number(leader.birth) + 1 + i);
      await attempt("reused-pid", `leader pid ${leader.pid} recorded with birth ${birth}`, () => {}, () => {}, { ...leader, birth });
      await attempt("reused-pid", `a live bystander pid recorded with the leader's birth`, () => {}, () => {}, { ...leader, pid: sleeper.pid! });
      const tuiReproof = await reproveTui({ ...tui, pid: sleeper.pid! });
      t.add("reused-pid", "the TUI's pid now names a bystander born later", tuiReproof.verdict === "match" ? null : tuiReproof.checks.filter((c) => c.verdict !== "match").map((c) => c.reason).join("; "));

      // Other executable / cwd recorded for the leader.
      await attempt("other-exe-cwd", "leader expected to run another executable", () => {}, () => {}, { ...leader, exe: [otherExe, "/bin/sh", "/usr/bin/env"][i % 3]! });
      await attempt("other-exe-cwd", "leader expected in another cwd", () => {}, () => {}, { ...leader, cwd: ["/", w.root, tmpdir()][i % 3]! });
    }
    const clean = await stopLeaderAfterTuiExit({ seatId: seat.seatId, tui, leader, exitTimeoutMs: 0 });
    t.control("a clean release stops the proven leader", clean.leaderStopped, clean.reason);
    t.control("the bystander was never signalled", alive(sleeper.pid!));
  } finally {
    for (const s of servers) s.close();
    for (const c of children) c.kill("SIGKILL");
    await teardown(w);
  }
}

/** Generated contradictory Herdr pane infos: every one must be refused by checkHerdrAgent. */
function herdrFieldAttacks(t: Tally, count: number): void {
  const sessionId = randomUUID();
  const expected = { agent: "grok", sessionId, pid: 4242, paneId: "w1-p1", terminalId: "t1" };
  const good = () => ({ pane_id: "w1-p1", terminal_id: "t1", agent: "grok", agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: sessionId } } as Record<string, any>);
  const ok = checkHerdrAgent(good() as never, expected, { shell_pid: 4242 } as never);
  t.control("Herdr fields that agree are accepted", ok.verdict === "match", ok.reason);
  const others = ["pi", "opencode", "claude", "codex", "GROK", "grok ", ""];
  const mutations: Array<[string, (p: Record<string, any>, i: number) => unknown]> = [
    ["top-level agent contradicts agent_session.agent", (p, i) => (p.agent = others[i % others.length])],
    ["agent_session.agent contradicts the top-level agent", (p, i) => (p.agent_session.agent = others[i % others.length])],
    ["source names another agent", (p, i) => (p.agent_session.source = `herdr:${others[i % others.length]}`)],
    ["another session id", (p) => (p.agent_session.value = randomUUID())],
    ["another pane id", (p, i) => (p.pane_id = `w1-p${2 + i}`)],
    ["another terminal", (p, i) => (p.terminal_id = `t${2 + i}`)],
    ["top-level agent null", (p) => (p.agent = null)],
    ["agent_session null", (p) => (p.agent_session = null)],
    ["session kind path", (p) => (p.agent_session.kind = "path")],
    ["both agents agree on another agent", (p, i) => { const a = others[i % others.length] || "pi"; p.agent = a; p.agent_session.agent = a; p.agent_session.source = `herdr:${a}`; }],
  ];
  for (let i = 0; i < count; i += 1) {
    const [name, mutate] = mutations[i % mutations.length]!;
    const pane = good();
    mutate(pane, i);
    const pidOff = i % 7 === 6;
    const verdict = checkHerdrAgent(pane as never, expected, { shell_pid: pidOff ? 4243 : 4242 } as never);
    t.add("herdr-contradictory", `${name}${pidOff ? " (and another shell pid)" : ""}`, verdict.verdict === "match" ? null : verdict.reason);
  }
}

/**
 * R3: `perKind` live variants per attack kind (plus hire-time rounds and generated Herdr fields). Never throws
 * for a failed variant; it is counted.
 */
export async function runSeatAttacks(options: { perKind: number; hireRounds: number }): Promise<SeatAttackResult> {
  const t = new Tally();
  let skipped: string | null = null;
  if (spawnSync("tmux", ["-V"]).status !== 0) skipped = "tmux is not installed";
  else {
    const backend = new TmuxBackend({ socketName: `gs-r3-${randomBytes(4).toString("hex")}` });
    try {
      await liveAttacks(t, backend, options.perKind);
      await hireAttacks(t, backend, options.hireRounds);
    } catch (error) {
      t.control("the attack run completed", false, messageOf(error));
    } finally {
      await backend.killServer().catch(() => undefined);
    }
  }
  try {
    await herdrHireAttacks(t, options.hireRounds);
  } catch (error) {
    t.control("the Herdr hire attacks completed", false, messageOf(error));
  }
  herdrFieldAttacks(t, options.perKind * 4);
  const kinds = [...t.kinds.values()];
  const tried = kinds.reduce((n, k) => n + k.tried, 0);
  const refused = kinds.reduce((n, k) => n + k.refused, 0);
  return { kinds, tried, refused, failures: tried - refused + t.controls.failures.length, controls: t.controls, skipped };
}
