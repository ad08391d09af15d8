/*
 * R3 visible-seat identity / socket attacks: foreign owner, symlink swap, replaced inode, reused pid (another
 *   birth), other executable / cwd, contradictory Herdr fields — each must be refused with the code it must produce.
 * Owns: runSeatAttacks(): per attack kind, variants tried (distinct and repeated), refused, the outcome codes seen,
 *   and every acceptance, wrong-code refusal or timeout.
 * Does not own: the proof under test (src/seat proof + release, src/identity, src/mux checkHerdrAgent) or the
 *   fakes (test/integration/seat/seat-fake-tui.ts in real tmux, test/fakes/herdr-sim.ts).
 * Method: (1) hire-time: hireSeat on a fake TUI whose leader runs another exe / cwd or serves a symlinked
 *   socket, and Herdr-simulator hires whose agent report contradicts the launch; (2) after a clean hire whose
 *   TUI then exits (the leader outlives it), each variant mutates the world or the binding, then both gates —
 *   the leader re-proof and the release that would signal it — must refuse, the leader must still run, and the
 *   world is restored; a clean re-proof before each variant and a clean release at the end are the controls
 *   that keep the refusals from being vacuous; (3) Herdr pane infos generated against checkHerdrAgent.
 *   This run is unprivileged, so a foreign owner is the seat bound to another uid (the check compares the
 *   socket's and directory's owner with the seat's uid) and a socket directory opened to others (mode ≠ 0700).
 * Invariant: a variant counts as refused only when its outcome code is one it must produce (and, for the leader
 *   proof, the identity check that names the attack refused); another code, a timeout or an acceptance is a failure
 *   recorded with the code seen. Codes and check names are compared, never message text.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { isSeatError, messageOf } from "../src/errors.js";
import type { IdentityResult } from "../src/identity/index.js";
import { openJournal, type Journal } from "../src/journal/index.js";
import { HerdrBackend, TmuxBackend, checkHerdrAgent, type Backend, type PaneDescriptor } from "../src/mux/index.js";
import {
  assertProven,
  hireSeat,
  proveSeatLeader,
  reproveForDispatch,
  reproveTui,
  stopLeaderAfterTuiExit,
  waitForExitObserved,
  type DispatchSeal,
  type HireSeatOptions,
  type LeaderBinding,
  type TuiProof,
} from "../src/seat/index.js";
import { startHerdrSim } from "../test/fakes/herdr-sim.js";

/** The attack kinds of R3. */
export const ATTACK_KINDS = [
  "foreign-owner",
  "symlink-swap",
  "replaced-inode",
  "reused-pid",
  "other-exe-cwd",
  "herdr-contradictory",
] as const;
/** One attack kind. */
export type AttackKind = (typeof ATTACK_KINDS)[number];

/**
 * What a variant ended with: the outcome code — a SeatError code, `A+B` when two gates each refused, a Herdr verdict
 * in brackets, or `no-signal:…` when release declined without an error — and the identity checks that refused; a
 * null code means the attack was accepted.
 */
export interface AttackOutcome {
  code: string | null;
  checks: string[];
  reason: string;
}

/** What an attack must produce to count as refused: one of these outcome codes, and (when given) one of these checks. */
export interface Expected {
  codes: readonly string[];
  checks?: readonly string[];
}

/** Figures for one attack kind. */
export interface AttackKindResult {
  kind: AttackKind;
  tried: number;
  refused: number;
  /** Distinct variants (attack shapes) among `tried`; the rest are repetitions with other parameters. */
  distinct: number;
  /** Every distinct variant with how often it ran. */
  variants: Record<string, number>;
  /** Outcome codes seen, with counts (including wrong ones). */
  codes: Record<string, number>;
  /** Variants accepted, refused with another code or check, or timed out — with the code seen. */
  failures: string[];
  /** A few distinct refusal reasons, as evidence. */
  reasons: string[];
}

/** The R3 result. */
export interface SeatAttackResult {
  kinds: AttackKindResult[];
  tried: number;
  /** Distinct variants over all kinds. */
  distinct: number;
  refused: number;
  failures: number;
  /** Clean proofs / releases that had to pass for the refusals to mean anything. */
  controls: { tried: number; passed: number; failures: string[] };
  skipped: string | null;
}

const DIST = join(fileURLToPath(import.meta.url), "..", "..");
const FAKE_TUI = join(DIST, "test", "integration", "seat", "seat-fake-tui.js");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface World {
  root: string;
  project: string;
  env: Record<string, string>;
  journal: Journal;
}

function makeWorld(): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-r3-")));
  const home = join(root, "h");
  const project = join(root, "p");
  for (const d of [home, join(home, ".grok"), project]) mkdirSync(d, { recursive: true, mode: 0o700 });
  return {
    root,
    project,
    env: { HOME: home, GROK_HOME: join(home, ".grok"), PATH: process.env.PATH ?? "/usr/bin:/bin" },
    journal: openJournal(join(root, "seats.db")),
  };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

function hireOptions(
  w: World,
  backend: Backend,
  config: Record<string, unknown> = {},
  extra: Partial<HireSeatOptions> = {},
): HireSeatOptions {
  return {
    grokBinary: process.execPath,
    binaryArgs: [FAKE_TUI, "--gs-config", JSON.stringify(config)],
    cwd: w.project,
    mux: backend.name,
    backend,
    journal: w.journal,
    env: w.env,
    versionFloor: "1.0.41",
    readyTimeoutMs: 10_000,
    requestTimeoutMs: 5000,
    ...extra,
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
  for (const pid of pids)
    if (pid > 0 && alive(pid))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
  for (let i = 0; i < 50 && pids.some((p) => p > 0 && alive(p)); i += 1) await sleep(50);
  for (const seat of w.journal.listSeats({ includeReleased: true }))
    rmSync(join(seat.socketPath, ".."), { recursive: true, force: true });
  w.journal.close();
  rmSync(w.root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

/** Results are committed: no machine paths (the repo checkout, temp dirs) in what is recorded. */
function scrub(text: string): string {
  return text
    .split(process.cwd())
    .join("<cwd>")
    .replace(/\/tmp\/[\w.-]+/g, "<tmp>");
}

/** The outcome code of a thrown error: its SeatError code, or what else it was (never counted as a refusal). */
function codeOfError(error: unknown): string {
  if (isSeatError(error)) return error.code;
  return `not-a-SeatError(${error instanceof Error ? error.name : typeof error})`;
}

/** The code the seat throws for a non-matching identity result (assertProven), with the checks that refused. */
function identityOutcome(result: IdentityResult): { code: string | null; checks: string[]; reason: string } {
  if (result.verdict === "match") return { code: null, checks: [], reason: "the identity proof matched" };
  const refused = result.checks.filter((c) => c.verdict !== "match");
  try {
    assertProven(result, "the bound process");
    return { code: "assertProven-did-not-throw", checks: [], reason: "" };
  } catch (error) {
    return {
      code: codeOfError(error),
      checks: refused.map((c) => c.name),
      reason: refused.map((c) => c.reason).join("; "),
    };
  }
}

/** Judges one outcome: refused only with an expected code (and check); otherwise the failure line, with the code seen. */
export function judgeAttack(
  expected: Expected,
  outcome: AttackOutcome,
): { refused: true } | { refused: false; failure: string } {
  const codeOk = outcome.code !== null && expected.codes.includes(outcome.code);
  const checkOk = !expected.checks || outcome.checks.some((c) => expected.checks!.includes(c));
  if (codeOk && checkOk) return { refused: true };
  const want = `${expected.codes.join(" or ")}${expected.checks ? ` [${expected.checks.join("|")}]` : ""}`;
  const got = `${outcome.code ?? "accepted"}${outcome.checks.length ? ` [${outcome.checks.join(",")}]` : ""}`;
  const reason = scrub(outcome.reason).slice(0, 160);
  return { refused: false, failure: `expected ${want}, got ${got}${reason ? ` — ${reason}` : ""}` };
}

class Tally {
  readonly kinds = new Map<AttackKind, AttackKindResult>(
    ATTACK_KINDS.map((k) => [
      k,
      { kind: k, tried: 0, refused: 0, distinct: 0, variants: {}, codes: {}, failures: [], reasons: [] },
    ]),
  );
  readonly controls = { tried: 0, passed: 0, failures: [] as string[] };
  /**
   * Counts one run of `variant` (an attack shape; `detail` is the parameter that varies between repetitions):
   * refused only when the outcome code is an expected one and, when checks are expected, one of them refused.
   */
  add(kind: AttackKind, variant: string, expected: Expected, outcome: AttackOutcome, detail = ""): void {
    const k = this.kinds.get(kind)!;
    k.tried += 1;
    if (!(variant in k.variants)) k.distinct += 1;
    k.variants[variant] = (k.variants[variant] ?? 0) + 1;
    const code = outcome.code ?? "accepted";
    k.codes[code] = (k.codes[code] ?? 0) + 1;
    const verdict = judgeAttack(expected, outcome);
    if (verdict.refused) {
      k.refused += 1;
      const reason = `${outcome.code}: ${scrub(outcome.reason).slice(0, 160)}`;
      if (k.reasons.length < 4 && !k.reasons.some((r) => r.slice(0, 60) === reason.slice(0, 60)))
        k.reasons.push(reason);
    } else k.failures.push(scrub(`${variant}${detail ? ` (${detail})` : ""}: ${verdict.failure}`));
  }
  control(what: string, ok: boolean, detail = ""): void {
    this.controls.tried += 1;
    if (ok) this.controls.passed += 1;
    else this.controls.failures.push(scrub(`${what}${detail ? `: ${detail}` : ""}`));
  }
}

/** The refusal every identity gate must produce on a hired leader: the proof refuses and release will not signal. */
const LEADER_REFUSED = ["IDENTITY_MISMATCH+SEAT_RELEASE_REFUSED"] as const;

/** Hire-time attacks: hireSeat must refuse with IDENTITY_MISMATCH (IDENTITY_UNKNOWN or a timeout is a failure). */
async function hireAttacks(t: Tally, backend: TmuxBackend, rounds: number): Promise<void> {
  const cwdNames = ["<world root>", "/", "<tmpdir>", "<home>"];
  for (let i = 0; i < rounds; i += 1) {
    const w = makeWorld();
    try {
      const otherExe = join(w.root, `node-${randomBytes(3).toString("hex")}`);
      try {
        linkSync(process.execPath, otherExe);
      } catch {
        copyFileSync(process.execPath, otherExe);
        chmodSync(otherExe, 0o755);
      }
      const otherCwd = [w.root, "/", tmpdir(), w.env.HOME!][i % 4]!;
      const cases: Array<[AttackKind, string, Record<string, unknown>]> = [
        ["other-exe-cwd", `hire: leader cwd ${cwdNames[i % 4]}`, { leaderCwd: otherCwd }],
        ["other-exe-cwd", "hire: leader runs a copy of the executable", { leaderExe: otherExe }],
        ["symlink-swap", "hire: the socket path is a symlink to the listener", { symlinkSocket: true }],
      ];
      for (const [kind, variant, config] of cases) {
        let outcome: AttackOutcome;
        try {
          const seat = await hireSeat(hireOptions(w, backend, config));
          await seat.release({ closePane: true });
          outcome = { code: null, checks: [], reason: "hired" };
        } catch (error) {
          outcome = { code: codeOfError(error), checks: [], reason: messageOf(error) };
        }
        t.add(kind, variant, { codes: ["IDENTITY_MISMATCH"] }, outcome, `round ${i + 1}`);
      }
    } finally {
      await teardown(w);
    }
  }
}

/** A Herdr refusal's outcome code: HERDR_AGENT_REFUSED with the verdict it carries (a timeout says unknown). */
function herdrCode(verdict: string): string {
  return `HERDR_AGENT_REFUSED[${verdict}]`;
}

/** Herdr-simulator hires whose agent report contradicts the launched grok session: refused as a mismatch, not a timeout. */
async function herdrHireAttacks(t: Tally, rounds: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gs-r3h-"));
  const sim = await startHerdrSim({ socketPath: join(dir, "h.sock"), version: "0.9.0" });
  const backend = new HerdrBackend({ socketPath: sim.socketPath });
  try {
    for (let i = 0; i < rounds; i += 1) {
      const w = makeWorld();
      try {
        const reports = [
          {
            variant: "hire: Herdr reports agent pi",
            report: () => ({ source: "herdr:pi", agent: "pi", agent_session_id: randomUUID() }),
          },
          {
            variant: "hire: Herdr reports another grok session",
            report: () => ({ source: "herdr:grok", agent: "grok", agent_session_id: randomUUID() }),
          },
        ];
        for (const { variant, report } of reports) {
          let outcome: AttackOutcome;
          try {
            const seat = await hireSeat(
              hireOptions(
                w,
                backend,
                {},
                {
                  readyTimeoutMs: 4000,
                  onStep: (step, detail) => {
                    if (step === "launched")
                      void backend.client.reportAgent((detail as PaneDescriptor).paneId, report());
                  },
                },
              ),
            );
            await seat.release({ closePane: true });
            outcome = { code: null, checks: [], reason: "hired" };
          } catch (error) {
            const verdict = isSeatError(error, "HERDR_AGENT_REFUSED")
              ? ((error.context.verdict as { verdict?: string } | undefined)?.verdict ?? "none")
              : null;
            outcome = {
              code: verdict === null ? codeOfError(error) : herdrCode(verdict),
              checks: [],
              reason: messageOf(error),
            };
          }
          t.add("herdr-contradictory", variant, { codes: [herdrCode("mismatch")] }, outcome, `round ${i + 1}`);
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

/**
 * Both gates on a (mutated) binding: the re-proof (its code is what assertProven throws) and the release that would
 * signal it (SEAT_RELEASE_REFUSED, or `no-signal:…` when it declines without an error). Code null when either accepted.
 */
async function gates(
  tui: TuiProof,
  leader: LeaderBinding,
  seatId: string,
  seal: DispatchSeal | null = null,
): Promise<AttackOutcome> {
  // The dispatch gate first, holding the seal of the clean leader: a seal that still matched would send a brief.
  const dispatch = await reproveForDispatch(leader, tui.pid, seal, leader.socketInode);
  if (dispatch.result.verdict === "match")
    return { code: null, checks: [], reason: `the dispatch re-proof matched (${dispatch.path})` };
  const { result } = await proveSeatLeader({
    ...leader,
    tuiPid: tui.pid,
    birth: leader.birth,
    requireChildOfTui: false,
  });
  const proof = identityOutcome(result);
  if (proof.code === null) return proof;
  try {
    const released = await stopLeaderAfterTuiExit({ seatId, tui, leader, exitTimeoutMs: 0 });
    if (released.leaderStopped)
      return {
        code: null,
        checks: proof.checks,
        reason: `the re-proof refused (${proof.code}) but release stopped the leader`,
      };
    const declined = released.tuiExit !== "exited" ? "no-signal:tui-not-exited" : "no-signal:leader-gone";
    return {
      code: `${proof.code}+${declined}`,
      checks: proof.checks,
      reason: `${proof.reason} | release: ${released.reason}`,
    };
  } catch (error) {
    return {
      code: `${proof.code}+${codeOfError(error)}`,
      checks: proof.checks,
      reason: `${proof.reason} | release: ${messageOf(error)}`,
    };
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
    // The seal a dispatch would hold: made by a clean full re-proof, refreshed after every restore.
    let seal = (await reproveForDispatch(leader, tui.pid, null, leader.socketInode)).seal;
    t.control("a clean full re-proof seals the leader for the dispatch gate", seal !== null);
    const control = async (after: string) => {
      const { result } = await proveSeatLeader({
        ...leader,
        tuiPid: tui.pid,
        birth: leader.birth,
        requireChildOfTui: false,
      });
      t.control(
        `clean re-proof ${after}`,
        result.verdict === "match" && alive(leader.pid),
        result.checks
          .filter((c) => c.verdict !== "match")
          .map((c) => c.reason)
          .join("; "),
      );
      const dispatch = await reproveForDispatch(leader, tui.pid, seal, leader.socketInode);
      t.control(
        `clean dispatch re-proof ${after}`,
        dispatch.result.verdict === "match" && dispatch.seal !== null,
        dispatch.path,
      );
      seal = dispatch.seal;
    };
    const attempt = async (
      kind: AttackKind,
      variant: string,
      expected: Expected,
      detail: string,
      mutate: () => void | Promise<void>,
      restore: () => void | Promise<void>,
      binding: LeaderBinding = leader,
      tuiBinding: TuiProof = tui,
    ) => {
      await mutate();
      let outcome: AttackOutcome;
      try {
        outcome = await gates(tuiBinding, binding, seat.seatId, seal);
      } catch (error) {
        outcome = { code: `threw:${codeOfError(error)}`, checks: [], reason: messageOf(error) };
      } finally {
        await restore();
      }
      // An attack that got the leader signalled was accepted, whatever the gates said.
      if (!alive(leader.pid))
        outcome = {
          code: null,
          checks: outcome.checks,
          reason: `the leader was signalled (${outcome.code ?? "accepted"})`,
        };
      t.add(kind, variant, expected, outcome, detail);
      await control(`after ${variant}${detail ? ` (${detail})` : ""}`);
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
    try {
      linkSync(process.execPath, otherExe);
    } catch {
      copyFileSync(process.execPath, otherExe);
    }
    const exes: Array<[string, string]> = [
      [otherExe, "a hard link / copy of node"],
      ["/bin/sh", "/bin/sh"],
      ["/usr/bin/env", "/usr/bin/env"],
    ];
    const cwds: Array<[string, string]> = [
      ["/", "/"],
      [w.root, "<world root>"],
      [tmpdir(), "<tmpdir>"],
    ];
    for (let i = 0; i < perKind; i += 1) {
      // Foreign owner: the seat's uid differs from the socket's and directory's owner; or the directory is opened up.
      const uid = me + 1 + ((i * 7919) % 60_000);
      await attempt(
        "foreign-owner",
        "seat bound to another uid than the socket's owner",
        { codes: LEADER_REFUSED, checks: ["uid", "euid", "socket-file", "socket-dir"] },
        `seat uid ${uid}`,
        () => {},
        () => {},
        { ...leader, uid },
      );
      const mode = modes[i % modes.length]!;
      await attempt(
        "foreign-owner",
        `socket dir mode ${mode.toString(8)}`,
        { codes: LEADER_REFUSED, checks: ["socket-dir"] },
        "",
        () => chmodSync(leader.socketDir, mode),
        () => chmodSync(leader.socketDir, 0o700),
      );

      // Symlink swap: the path becomes a link — to the real (moved) listener, an impostor, a file, or nothing.
      const target = [aside, `${real}.imp`, `${real}.file`, `${real}.none`, "/dev/null"][i % 5]!;
      let impostor: Server | null = null;
      await attempt(
        "symlink-swap",
        `socket path → ${target.replace(leader.socketDir, "<dir>")}`,
        { codes: LEADER_REFUSED, checks: ["socket-file"] },
        "",
        async () => {
          renameSync(real, aside);
          if (target.endsWith(".imp")) impostor = await listen(target);
          if (target.endsWith(".file")) writeFileSync(target, "x");
          symlinkSync(target, real);
        },
        async () => {
          rmSync(real, { force: true });
          if (impostor) await closeServer(impostor);
          for (const p of [`${real}.imp`, `${real}.file`]) rmSync(p, { force: true });
          renameSync(aside, real);
        },
      );

      // Replaced inode: another listener, a file, a directory or a FIFO now sits at the path.
      const what = ["listener", "file", "directory", "fifo", "listener in another process"][i % 5]!;
      let replacement: Server | null = null;
      let child: ChildProcess | null = null;
      // Since the proof re-checks the socket inode recorded at hire, a second listener under the same name is a
      // mismatch like any other replacement (before that it could only be IDENTITY_UNKNOWN).
      const replacedCodes = LEADER_REFUSED;
      await attempt(
        "replaced-inode",
        `socket replaced by a ${what}`,
        {
          codes: replacedCodes,
          checks: what.startsWith("listener") ? ["socket-holder"] : ["socket-file", "socket-holder"],
        },
        "",
        async () => {
          renameSync(real, aside);
          if (what === "listener") replacement = await listen(real);
          else if (what === "file") writeFileSync(real, "");
          else if (what === "directory") mkdirSync(real);
          else if (what === "fifo") spawnSync("mkfifo", [real]);
          else {
            child = spawn(
              process.execPath,
              ["-e", `require("net").createServer().listen(${JSON.stringify(real)}, () => console.log("up"))`],
              { stdio: ["ignore", "pipe", "ignore"] },
            );
            children.push(child);
            await new Promise<void>((r) => {
              child!.stdout!.once("data", () => r());
              setTimeout(r, 3000);
            });
          }
        },
        async () => {
          if (replacement) await closeServer(replacement);
          if (child) {
            child.kill("SIGKILL");
            await new Promise((r) => {
              child!.once("exit", r);
              setTimeout(r, 2000);
            });
          }
          rmSync(real, { recursive: true, force: true });
          renameSync(aside, real);
        },
      );

      // Reused pid: the record's birth differs from the live process at that pid (the leader's or another one's).
      // Release refuses by name (a successor not born after the recorded leader is no respawn of it).
      const reused = { codes: LEADER_REFUSED, checks: ["birth"] };
      const birth = String(Number(leader.birth) + 1 + i);
      await attempt(
        "reused-pid",
        "leader pid recorded with a later birth",
        reused,
        `birth ${birth}`,
        () => {},
        () => {},
        { ...leader, birth },
      );
      await attempt(
        "reused-pid",
        "a live bystander pid recorded with the leader's birth",
        reused,
        "",
        () => {},
        () => {},
        { ...leader, pid: sleeper.pid! },
      );
      t.add(
        "reused-pid",
        "the TUI's pid now names a bystander born later",
        { codes: ["IDENTITY_MISMATCH"], checks: ["birth"] },
        identityOutcome(await reproveTui({ ...tui, pid: sleeper.pid! })),
      );

      // Other executable / cwd recorded for the leader.
      const [exe, exeName] = exes[i % exes.length]!;
      await attempt(
        "other-exe-cwd",
        `leader expected to run ${exeName}`,
        { codes: LEADER_REFUSED, checks: ["exe"] },
        "",
        () => {},
        () => {},
        { ...leader, exe },
      );
      const [cwd, cwdName] = cwds[i % cwds.length]!;
      await attempt(
        "other-exe-cwd",
        `leader expected in cwd ${cwdName}`,
        { codes: LEADER_REFUSED, checks: ["cwd"] },
        "",
        () => {},
        () => {},
        { ...leader, cwd },
      );
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

/**
 * Generated contradictory Herdr pane infos through checkHerdrAgent. hireSeat turns any verdict but match into
 * HERDR_AGENT_REFUSED (a mismatch at once, an unknown when the readiness time runs out), so the verdict is what
 * tells the refusals apart: a contradiction must be a mismatch; a null or empty field, or a session given as a
 * path, is unknown (the session cannot be confirmed yet); another shell pid is a mismatch, checked first.
 */
function herdrFieldAttacks(t: Tally, count: number): void {
  const sessionId = randomUUID();
  const expected = { agent: "grok", sessionId, pid: 4242, paneId: "w1-p1", terminalId: "t1" };
  const good = () =>
    ({
      pane_id: "w1-p1",
      terminal_id: "t1",
      agent: "grok",
      agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: sessionId },
    }) as Record<string, any>;
  const ok = checkHerdrAgent(good() as never, expected, { shell_pid: 4242 } as never);
  t.control("Herdr fields that agree are accepted", ok.verdict === "match", ok.reason);
  const others = ["pi", "opencode", "claude", "codex", "GROK", "grok ", ""];
  const other = (i: number) => others[i % others.length]!;
  type Mutation = [string, (p: Record<string, any>, i: number) => unknown, (i: number) => "mismatch" | "unknown"];
  const mismatch = () => "mismatch" as const;
  const unknownWhenEmpty = (i: number) => (other(i) === "" ? "unknown" : "mismatch");
  const mutations: Mutation[] = [
    ["top-level agent contradicts agent_session.agent", (p, i) => (p.agent = other(i)), unknownWhenEmpty],
    [
      "agent_session.agent contradicts the top-level agent",
      (p, i) => (p.agent_session.agent = other(i)),
      unknownWhenEmpty,
    ],
    ["source names another agent", (p, i) => (p.agent_session.source = `herdr:${other(i)}`), mismatch],
    ["another session id", (p) => (p.agent_session.value = randomUUID()), mismatch],
    ["another pane id", (p, i) => (p.pane_id = `w1-p${2 + i}`), mismatch],
    ["another terminal", (p, i) => (p.terminal_id = `t${2 + i}`), mismatch],
    ["top-level agent null", (p) => (p.agent = null), () => "unknown"],
    ["agent_session null", (p) => (p.agent_session = null), () => "unknown"],
    ["session kind path", (p) => (p.agent_session.kind = "path"), () => "unknown"],
    [
      "both agents agree on another agent",
      (p, i) => {
        const a = other(i) || "pi";
        p.agent = a;
        p.agent_session.agent = a;
        p.agent_session.source = `herdr:${a}`;
      },
      mismatch,
    ],
  ];
  for (let i = 0; i < count; i += 1) {
    const [name, mutate, verdictFor] = mutations[i % mutations.length]!;
    const pane = good();
    mutate(pane, i);
    const pidOff = i % 7 === 6;
    // Pane id and terminal are compared before the pid, so they stay mismatches; everything else meets the pid first.
    const want = pidOff ? "mismatch" : verdictFor(i);
    const verdict = checkHerdrAgent(pane as never, expected, { shell_pid: pidOff ? 4243 : 4242 } as never);
    const usesValue = name.includes("contradicts") || name.startsWith("source") || name.startsWith("both");
    t.add(
      "herdr-contradictory",
      `${name}${usesValue ? ` = ${JSON.stringify(other(i))}` : ""}${pidOff ? " (and another shell pid)" : ""}`,
      { codes: [herdrCode(want)] },
      { code: verdict.verdict === "match" ? null : herdrCode(verdict.verdict), checks: [], reason: verdict.reason },
      `case ${i + 1}`,
    );
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
  const distinct = kinds.reduce((n, k) => n + k.distinct, 0);
  return {
    kinds,
    tried,
    distinct,
    refused,
    failures: tried - refused + t.controls.failures.length,
    controls: t.controls,
    skipped,
  };
}
