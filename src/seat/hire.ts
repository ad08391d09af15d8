/*
 * Hire: launch a visible `grok --leader` TUI, prove it and its leader, attach once, check readiness.
 * Owns: the order of a hire — plan, pane, TUI binding, readiness evidence, Herdr agent check, leader
 *   proof, register + admission, get_leader_info re-proof, initialize + admission, authenticate,
 *   load/resume of the exact session, catalog and model/effort readiness (each ACP step waits while grok
 *   shows progress, up to a cap: handshake-wait.ts) — and
 *   cleaning up a refused hire.
 * Does not own: delivery (visible-seat.ts), the per-seat controller process (controller.ts).
 * Invariant: proof before control; one connection, never a reconnect; no brief is typed and no ACP
 *   stdio agent is started; every failure is a SeatError and leaves nothing behind (pane closed, a leader
 *   proven bound to our TUI stopped after the TUI exited, socket directory removed).
 * Spec: ADR 0224; grok-wire.md §12-§14; docs/seat-protocol.md#hire
 */
import { realpath, rm } from "node:fs/promises";
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { ACP, SessionCore, X_AI, connectAcp, type SeatCallbacks, type SeatEvent } from "../acp/index.js";
import { parseGrokVersion, runGrokCommand } from "../grok/index.js";
import { connectLeader, type LeaderClient } from "../leader/index.js";
import type { Journal } from "../journal/index.js";
import { HerdrBackend, checkHerdrAgent, type Backend, type PaneDescriptor } from "../mux/index.js";
import { admitLeader, admitSeat } from "./admission.js";
import { buildHirePlan, createSocketDir, type HirePlan, type PlanInput } from "./plan.js";
import {
  assertProven,
  bindLeader,
  nothingServes,
  bindTui,
  proveSeatLeader,
  readLockPid,
  waitForActiveSession,
  waitForExitObserved,
  type LeaderBinding,
  type TuiProof,
} from "./proof.js";
import { awaitHandshake, type HandshakeLimits, type HandshakeResend, type HandshakeWatch } from "./handshake-wait.js";
import { assertCatalogReady, assertNativeOption, assertSelectionEcho } from "./readiness.js";
import { VisibleSeat, recordedInode, stopLeaderAfterTuiExit } from "./visible-seat.js";
import { InteractionWatch } from "./interactions.js";

/** grok's machine-wide MCP server broadcast; not yet in acp/methods.ts (reported to its owner). */

/** Options of hireSeat. */
export interface HireSeatOptions extends PlanInput {
  backend: Backend;
  journal: Journal;
  /** Our uid (default process.getuid()); the socket, its directory and both processes must carry it. */
  uid?: number;
  /** Time for the TUI to come up: socket, lock, active_sessions.json, Herdr agent (default 30 s). */
  readyTimeoutMs?: number;
  /**
   * Time for register and control; for each ACP step (initialize, authenticate, resume/load, commands, model)
   * the time without any sign of progress from grok (default 15 s). See handshake-wait.ts.
   */
  requestTimeoutMs?: number;
  /** The most one ACP step may take while grok keeps showing progress (default 90 s, never below requestTimeoutMs). */
  handshakeCapMs?: number;
  callbacks?: SeatCallbacks;
  /** Called with each step name as the hire proceeds (controller logs). */
  onStep?: (step: string, detail?: unknown) => void;
  /**
   * Restore a seat a reboot took instead of hiring a new one: its journal row is reopened (a compare-and-set on
   * the leader socket path it had, SEAT_RESTORE_CONFLICT when another restore won) and `resumeSessionId` names
   * the grok session the TUI continues.
   */
  restore?: { expectSocketPath: string };
  /** Called once the plan exists (before launch), e.g. to persist it. */
  onPlan?: (plan: HirePlan) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads `grok --version` through the same argv prefix the pane will use; the plain semver or null. */
export async function readCliVersion(
  binary: string,
  binaryArgs: string[],
  env: Record<string, string>,
): Promise<{ version: string | null; detail: string }> {
  const result = await runGrokCommand({ binary, args: [...binaryArgs, "--version"], env, timeoutMs: 10_000 });
  const parsed = result.exitCode === 0 ? parseGrokVersion(result.stdout) : null;
  return {
    version: parsed?.version ?? null,
    detail: parsed ? `${parsed.version} (${parsed.sha})` : (result.error?.message ?? result.stdout.trim()),
  };
}

/** Waits for the socket's lock to name a pid and active_sessions.json to list the TUI's session. */
async function waitForReadiness(
  plan: HirePlan & { socketPath: string },
  tui: TuiProof,
  deadline: number,
): Promise<number> {
  for (;;) {
    const lockPid = await readLockPid(plan.socketPath);
    if (lockPid !== null) {
      const evidence = await waitForActiveSession(
        plan.grokHome,
        { sessionId: plan.sessionId, pid: tui.pid, cwd: tui.cwd },
        Math.max(0, deadline - Date.now()),
      );
      if (evidence.verdict === "match") return lockPid;
      const code = evidence.verdict === "mismatch" ? "IDENTITY_MISMATCH" : "IDENTITY_UNKNOWN";
      throw new SeatError(
        code,
        `$GROK_HOME/active_sessions.json does not confirm the original TUI: ${evidence.reason}. The seat refuses control.`,
        { context: { grokHome: plan.grokHome, evidence } },
      );
    }
    if ((await waitForExitObserved(tui, 0)) === "exited") {
      throw new SeatError(
        "GROK_EXITED",
        `The TUI (pid ${tui.pid}) exited before its leader socket ${plan.socketPath} came up. Check the pane's output with \`seat attach\` or run grok by hand.`,
        { context: { pid: tui.pid, socketPath: plan.socketPath } },
      );
    }
    if (Date.now() >= deadline) {
      throw new SeatError(
        "IDENTITY_UNKNOWN",
        `The leader lock ${plan.socketPath}.lock never named a pid within the readiness time. The seat refuses control.`,
        { context: { socketPath: plan.socketPath } },
      );
    }
    await sleep(150);
  }
}

/** Polls Herdr's agent fields for the pane until they match; mismatch or time running out refuses. */
async function waitForHerdrAgent(
  backend: HerdrBackend,
  pane: PaneDescriptor,
  sessionId: string,
  deadline: number,
): Promise<string> {
  for (;;) {
    const [info, processInfo] = await Promise.all([
      backend.client.getPane(pane.paneId),
      backend.client.getProcessInfo(pane.paneId),
    ]);
    const verdict = checkHerdrAgent(
      info,
      {
        agent: "grok",
        sessionId,
        pid: pane.pid,
        paneId: pane.paneId,
        ...(pane.terminal ? { terminalId: pane.terminal } : {}),
      },
      processInfo,
    );
    if (verdict.verdict === "match") return verdict.reason;
    if (verdict.verdict === "mismatch" || Date.now() >= deadline) {
      throw new SeatError(
        "HERDR_AGENT_REFUSED",
        `Herdr's agent fields for pane ${pane.paneId} refuse control (${verdict.verdict}): ${verdict.reason}.`,
        { context: { paneId: pane.paneId, verdict } },
      );
    }
    await sleep(200);
  }
}

/**
 * Hires a visible seat: launches the TUI in a new pane, proves it and its leader, attaches once and
 * checks readiness. Throws a SeatError (and cleans up what it may) when anything refuses.
 */
export async function hireSeat(options: HireSeatOptions): Promise<VisibleSeat> {
  const { backend, journal } = options;
  const step = options.onStep ?? (() => {});
  const uid = options.uid ?? process.getuid?.() ?? 0;
  const readyMs = options.readyTimeoutMs ?? 30_000;
  const requestMs = options.requestTimeoutMs ?? 15_000;
  const limits: HandshakeLimits = { idleMs: requestMs, capMs: Math.max(options.handshakeCapMs ?? 90_000, requestMs) };
  let plan: (HirePlan & { socketDir: string; socketPath: string }) | null = null;
  let seatRow = false;
  let pane: PaneDescriptor | null = null;
  let tui: TuiProof | null = null;
  let leader: LeaderBinding | null = null;
  let client: LeaderClient | null = null;
  try {
    plan = createSocketDir(buildHirePlan(options)) as HirePlan & { socketDir: string; socketPath: string };
    options.onPlan?.(plan);
    const exe = await realpath(options.grokBinary).catch((error: NodeJS.ErrnoException) => {
      throw new SeatError(
        "GROK_NOT_FOUND",
        `The grok binary ${options.grokBinary} cannot be resolved (${error.code ?? messageOf(error)}). Pass an existing binary with --grok or GROK_BIN.`,
        { context: { grokBinary: options.grokBinary }, cause: error },
      );
    });
    const cli = await readCliVersion(options.grokBinary, options.binaryArgs ?? [], plan.env);
    step("cli-version", cli);
    if (options.restore === undefined) {
      journal.createSeat({
        seatId: plan.seatId,
        sessionId: plan.sessionId,
        socketPath: plan.socketPath,
        state: "hiring",
      });
      seatRow = true;
    } else if (
      !journal.reopenSeat(
        plan.seatId,
        { socketPath: options.restore.expectSocketPath },
        { socketPath: plan.socketPath },
      )
    ) {
      throw new SeatError(
        "SEAT_RESTORE_CONFLICT",
        `Seat ${plan.seatId} was restored or released by another process since it was found lost; nothing was launched.`,
        { context: { seatId: plan.seatId } },
      );
    }
    pane = await backend.launch({ argv: plan.argv, cwd: plan.cwd, env: plan.env, label: plan.seatId });
    step("launched", pane);
    journal.updateSeat(plan.seatId, { muxDescriptor: pane });
    tui = await bindTui(pane, { exe, cwd: plan.cwd, uid });
    journal.updateSeat(plan.seatId, {
      tuiPid: tui.pid,
      tuiBirth: tui.birth,
      tuiExe: tui.exe,
      tuiCwd: tui.cwd,
      tuiTty: tui.tty,
    });
    step("tui-bound", tui);
    const deadline = Date.now() + readyMs;
    const lockPid = await waitForReadiness(plan, tui, deadline);
    step("ready", { lockPid });
    if (backend instanceof HerdrBackend)
      step("herdr-agent", await waitForHerdrAgent(backend, pane, plan.sessionId, deadline));
    leader = await bindLeader({
      pid: lockPid,
      tuiPid: tui.pid,
      exe,
      cwd: tui.cwd,
      uid,
      socketPath: plan.socketPath,
      socketDir: plan.socketDir,
      birth: null,
      requireChildOfTui: true,
    });
    journal.updateSeat(plan.seatId, {
      leaderPid: leader.pid,
      leaderBirth: leader.birth,
      leaderExe: leader.exe,
      leaderSocketInode: leader.socketInode,
    });
    step("leader-proven", leader);

    client = await connectLeader({
      socketPath: plan.socketPath,
      clientType: "grok-seat",
      timeoutMs: requestMs,
      keepaliveMs: 30_000,
    });
    admitLeader({ registered: client.registered, versionFloor: plan.versionFloor, cliVersion: cli.version });
    const info = (await client.control({ type: "get_leader_info" }, { timeoutMs: requestMs })) as Record<
      string,
      unknown
    >;
    if (info?.pid !== leader.pid || (info.socket_path !== undefined && info.socket_path !== plan.socketPath)) {
      throw new SeatError(
        "IDENTITY_MISMATCH",
        `get_leader_info reports pid ${String(info?.pid)} on ${String(info?.socket_path)}; the proven leader is pid ${leader.pid} on ${plan.socketPath}. The seat refuses control.`,
        { context: { info, leaderPid: leader.pid } },
      );
    }
    const reproof = await proveSeatLeader({
      ...leader,
      tuiPid: tui.pid,
      birth: leader.birth,
      requireChildOfTui: true,
      socketInode: recordedInode(leader),
    });
    assertProven(reproof.result, `The leader pid ${leader.pid} (after connect)`, { socketPath: plan.socketPath });
    step("leader-info", info);

    const mcpLists: unknown[] = [];
    let seat: VisibleSeat | null = null;
    const user = options.callbacks ?? {};
    const callbacks: SeatCallbacks = {
      ...user,
      onEvent: async (event: SeatEvent) => {
        seat?.observe(event);
        await user.onEvent?.(event);
      },
    };
    const liveClient = client;
    let core: SessionCore | null = null;
    // Follows what the TUI asks its owner from the first notification on (a question may already be open).
    const interactions = new InteractionWatch(() => seat?.interactionsChanged());
    const peer = await connectAcp(
      liveClient.stream,
      {
        onSessionUpdate: (n) => core?.handleUpdate(n),
        onExtNotification: (method, params) => {
          if (method === X_AI.mcpServersUpdated) {
            const list = (params as { mcpServers?: unknown } | null)?.mcpServers;
            if (Array.isArray(list)) mcpLists.push(...list);
          }
          interactions.observe(method, params);
          core?.handleExt(method, params);
        },
        // Permissions and questions stay with the TUI owner (first answer wins in the leader): never answer.
        onPermissionRequest: (request, signal) => {
          core?.emit({
            type: "permission",
            toolCallId: String((request.toolCall as { toolCallId?: unknown })?.toolCallId ?? ""),
            category: "owner",
            decision: "left to the TUI owner",
          });
          return new Promise((_, reject) =>
            signal.addEventListener("abort", () => reject(new Error("connection closed")), { once: true }),
          );
        },
      },
      "grok-seat",
    );
    core = new SessionCore(peer, callbacks, { diagnosticsAsText: false });
    const watch: HandshakeWatch = { client: liveClient, leaderPid: leader.pid, grokHome: plan.grokHome };
    const timed = <T>(
      work: Promise<T>,
      what: string,
      context: Record<string, unknown>,
      resend?: HandshakeResend<T>,
    ): Promise<T> => awaitHandshake(work, what, watch, limits, context, resend);

    const init = await timed(
      peer.request<InitializeResponse>(ACP.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "grok-seat", version: "0.1.0" },
      }),
      "initialize",
      { socketPath: plan.socketPath },
    );
    const admission = admitSeat({
      versionFloor: plan.versionFloor,
      cliVersion: cli.version,
      registered: liveClient.registered,
      initialize: init as never,
    });
    step("admitted", admission);
    const initMeta = (init._meta ?? {}) as Record<string, unknown>;
    const methodId = typeof initMeta.defaultAuthMethodId === "string" ? initMeta.defaultAuthMethodId : undefined;
    if (!methodId) {
      throw new SeatError(
        "ACP_NOT_AUTHENTICATED",
        `grok advertises no default auth method (${(init.authMethods ?? []).map((m) => m.id).join(", ") || "none"}); the seat never signs in on the owner's behalf. Sign in to grok in the TUI's profile, then hire again.`,
        { context: { authMethods: init.authMethods } },
      );
    }
    await timed(peer.request(ACP.agent.authenticate, { methodId }), "authenticate", { methodId });
    const caps = (init.agentCapabilities ?? {}) as { sessionCapabilities?: { resume?: unknown } };
    const attachMethod =
      caps.sessionCapabilities?.resume !== undefined ? ACP.agent.session.resume : ACP.agent.session.load;
    const attached = await timed(
      peer.request<Record<string, unknown>>(attachMethod, { sessionId: plan.sessionId, cwd: tui.cwd, mcpServers: [] }),
      attachMethod,
      { sessionId: plan.sessionId },
    );
    const attachedId = (attached?._meta as Record<string, unknown> | undefined)?.sessionId ?? attached?.sessionId;
    if (attachedId !== undefined && attachedId !== plan.sessionId) {
      throw new SeatError(
        "IDENTITY_MISMATCH",
        `${attachMethod} answered for session ${String(attachedId)}, not ${plan.sessionId}. The seat refuses control.`,
        { context: { attachedId } },
      );
    }
    core.bind(plan.sessionId);
    interactions.bind(plan.sessionId);
    step("attached", { method: attachMethod });

    // A catalog read changes nothing, so one grok has not answered while its log stays quiet is sent again: under
    // load a 1.0.41 leader once left it unanswered for 90 s while it answered every ping and logged nothing.
    const sessionId = plan.sessionId;
    const listCommands = () => peer.request<{ tools?: unknown[] }>(X_AI.commandsList, { sessionId });
    const commands = await timed(listCommands(), X_AI.commandsList, {}, { send: listCommands });
    const catalog = [
      ...(Array.isArray(initMeta.mcpServers) ? initMeta.mcpServers : []),
      ...(Array.isArray((attached?._meta as Record<string, unknown> | undefined)?.mcpServers)
        ? ((attached._meta as Record<string, unknown>).mcpServers as unknown[])
        : []),
      ...mcpLists,
      ...(Array.isArray(commands?.tools) ? commands.tools : []),
    ];
    assertCatalogReady(catalog, { sessionId: plan.sessionId });
    const selected = { model: null as string | null, effort: null as string | null };
    let options_ = attached as unknown;
    for (const [kind, value] of [
      ["model", plan.model],
      ["effort", plan.effort],
    ] as const) {
      if (value === null) continue;
      const configId = assertNativeOption(options_, kind, value);
      const echoed = await timed(
        peer.request(ACP.agent.session.setConfigOption, { sessionId: plan.sessionId, configId, value }),
        ACP.agent.session.setConfigOption,
        { configId, value },
      );
      assertSelectionEcho(echoed, kind, value);
      selected[kind] = value;
      options_ = { ...(options_ as object), ...(echoed as object) };
    }
    step("ready-checked", { catalogEntries: catalog.length, selected });
    journal.updateSeat(plan.seatId, { state: "active" });
    seat = new VisibleSeat({
      plan,
      tui,
      leader,
      admission,
      client: liveClient,
      peer,
      core,
      journal,
      backend,
      selected,
      interactions,
    });
    return seat;
  } catch (error) {
    step("refused", messageOf(error));
    await cleanUpRefusedHire({ plan, pane, tui, leader, client, backend, uid, step });
    if (plan && seatRow) journal.updateSeat(plan.seatId, { state: "released" });
    throw isSeatError(error)
      ? error
      : new SeatError(
          "ACP_HANDSHAKE_FAILED",
          `Hiring seat ${plan?.seatId ?? "(no plan)"} failed: ${messageOf(error)}.`,
          { cause: error },
        );
  }
}

/**
 * Leaves nothing of a refused hire behind: closes the connection and the pane, stops a leader the TUI
 * started (the proven one, or, if none was proven yet, the one serving our socket that re-proves as bound
 * to our TUI), and removes the private socket directory once nothing serves it.
 */
async function cleanUpRefusedHire(state: {
  plan: (HirePlan & { socketDir: string; socketPath: string }) | null;
  pane: PaneDescriptor | null;
  tui: TuiProof | null;
  leader: LeaderBinding | null;
  client: LeaderClient | null;
  backend: Backend;
  uid: number;
  step: (step: string, detail?: unknown) => void;
}): Promise<void> {
  const { plan, pane, tui, client, backend, step } = state;
  await client?.close().catch(() => undefined);
  if (pane) await backend.close(pane).catch(() => undefined);
  if (!plan) return;
  if (tui) {
    // No leader proven yet: a binding that names no process, so release looks for whoever serves the socket
    // and stops it only if it proves bound to our TUI (session = TUI pid, exe, cwd, uid, holds the socket).
    const leader = state.leader ?? {
      pid: -1,
      birth: "never bound",
      exe: tui.exe,
      cwd: tui.cwd,
      uid: state.uid,
      socketPath: plan.socketPath,
      socketDir: plan.socketDir,
      socketInode: null,
    };
    const stopped = await stopLeaderAfterTuiExit({ seatId: plan.seatId, tui, leader, exitTimeoutMs: 10_000 }).then(
      (r) => (step("cleanup", r), true),
      (e: unknown) => (step("cleanup-refused", messageOf(e)), false),
    );
    if (!stopped) return;
  } else if (pane) {
    await sleep(200); // the pane's process goes on SIGHUP; give it a moment before looking at the socket
  }
  if (await nothingServes(plan.socketPath)) {
    await rm(plan.socketDir, { recursive: true, force: true }).catch(() => undefined);
  } else {
    step(
      "cleanup-refused",
      `something may still listen on ${plan.socketPath}; its directory ${plan.socketDir} was kept`,
    );
  }
}
