/*
 * A grok session's side calls: starts the metering point on grok's model route (when the seat can redirect it),
 *   keeps each turn's budget at that point (a side call the budget cannot cover, and any call once the budget is
 *   spent, is refused before it reaches the model), and adds the calls grok does not report to the turn's result
 *   (measured, or estimated).
 * Owns: the per-session wiring between usage/'s metering point and a turn (begin, admit, collect).
 * Does not own: the proxy (metering/metering-point.ts), the route (grok/model-route.ts), the ledger.
 * Invariant: the agent's `_meta.usage` stays the authority for the calls it reports; a turn's result carries every
 *   other call it caused once; the metering point never changes what the agent is told about an unreachable model.
 * Spec: docs/spend.md#the-metering-point.
 */
import { connect } from "node:net";
import type { Diagnostic, TurnResult, Usage } from "../acp/index.js";
import { grokModelRoute, type ModelRoute } from "../grok/index.js";
import type { TurnBudget } from "../metering/index.js";
import { admitCall } from "../metering/index.js";
import { startMeteringPoint, type MeteringPoint, type PendingCall } from "../metering/index.js";
import { estimateGrokSideCalls, meterMissedTurn, sideCallsFromMeter, sideCallTokens } from "../metering/index.js";

/** How long a turn's result waits for its side calls to finish (the model's own time for one short call). */
export const SIDE_CALL_WAIT_MS = 30_000;
/** How long a turn that did not end normally waits for the calls it left in flight to close. */
export const ABANDONED_CALL_WAIT_MS = 1_000;
/** How long a turn that ended normally waits for grok's turn summary to start, when it has not yet. */
export const SIDE_CALL_GRACE_MS = 150;

interface TurnBudgetState {
  promptId: string;
  budget: TurnBudget;
  costOf?: (usage: Usage) => number | undefined;
  overBudget?: (diagnostic: Diagnostic) => void;
}

/** How many turns that ended over budget a session remembers, to refuse a call grok sends late for one. */
const ENDED_OVER_BUDGET_KEPT = 16;

/** How long the check that the model's host accepts connections may take before the route is left alone. */
export const ROUTE_PROBE_TIMEOUT_MS = 1_500;

/** True when `url`'s host accepts a TCP connection within ROUTE_PROBE_TIMEOUT_MS. */
function accepts(url: string): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(target.port || (target.protocol === "https:" ? 443 : 80));
  const host = target.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ROUTE_PROBE_TIMEOUT_MS, () => finish(false));
    socket.once("connect", () => finish(true));
    socket.once("error", () => finish(false));
  });
}

const PROXY_NAMES = ["HTTP_PROXY", "http_proxy"];

/**
 * `GROK_CONFIG` (grok's inline JSON overlay) with HTTP_PROXY and http_proxy added to
 * `shell_environment_policy.exclude`, so the commands grok runs never see the metering point; undefined when the
 * given overlay is not a JSON object.
 */
export function withoutProxyInShells(given: string | undefined): string | undefined {
  let config: Record<string, unknown> = {};
  if (given !== undefined && given.trim() !== "") {
    try {
      const parsed = JSON.parse(given) as unknown;
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
      config = parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  const policy = config.shell_environment_policy;
  if (policy !== undefined && (typeof policy !== "object" || policy === null || Array.isArray(policy)))
    return undefined;
  const current = (policy as Record<string, unknown> | undefined)?.exclude;
  if (current !== undefined && !Array.isArray(current)) return undefined;
  const exclude = [
    ...((current as unknown[] | undefined) ?? []),
    ...PROXY_NAMES.filter((n) => !(current as unknown[] | undefined)?.includes(n)),
  ];
  return JSON.stringify({
    ...config,
    shell_environment_policy: { ...(policy as Record<string, unknown> | undefined), exclude },
  });
}

/** The side-call metering of one grok session. */
export class SideCallMeter {
  private turn: TurnBudgetState | undefined;
  /** Turns that ended over their budget, most recent last: a call grok still sends for one is refused. */
  private readonly endedOverBudget: string[] = [];

  private constructor(
    readonly route: ModelRoute,
    private readonly point: MeteringPoint | undefined,
  ) {}

  /**
   * Starts the metering point when grok's route is the xAI API (its `GROK_XAI_API_BASE_URL` is pointed at it) or a
   * plain-http BYOK model (`HTTP_PROXY` is), and returns the env grok must be spawned with; on an https BYOK route
   * the env is unchanged and side calls are estimated.
   */
  static async start(
    agentEnv: Record<string, string>,
    model: string | undefined,
  ): Promise<{ meter: SideCallMeter; env: Record<string, string> }> {
    let route = grokModelRoute(agentEnv, model);
    // An upstream that refuses connections stays grok's own problem, in grok's own words ("connection refused",
    // MODEL_UNREACHABLE): a proxy in between could only close the connection, which grok reports differently.
    // Only the plain-http route is checked (a local model server, an address at hand): the xAI route would cost
    // every session a DNS lookup and a connection to api.x.ai before grok even starts.
    if (route.kind === "http" && !(await accepts(route.baseUrl))) {
      route = { kind: "own", why: "the model's base URL did not accept a connection when the session started" };
    }
    if (route.kind === "own") return { meter: new SideCallMeter(route, undefined), env: agentEnv };
    let meter!: SideCallMeter;
    const point = await startMeteringPoint({
      ...(route.kind === "xai" ? { upstream: route.upstream } : {}),
      admit: (call) => meter.admit(call),
    });
    meter = new SideCallMeter(route, point);
    if (route.kind === "xai") return { meter, env: { ...agentEnv, GROK_XAI_API_BASE_URL: point.baseUrl } };
    // A plain-http BYOK model: grok sends its http requests through HTTP_PROXY (https ones never go here); the
    // commands grok runs do not inherit it (grok's shell_environment_policy, through the GROK_CONFIG overlay).
    const overlay = withoutProxyInShells(agentEnv.GROK_CONFIG);
    if (overlay === undefined) {
      await point.close();
      return {
        meter: new SideCallMeter(
          { kind: "own", why: "GROK_CONFIG is not a JSON object the seat can add to" },
          undefined,
        ),
        env: agentEnv,
      };
    }
    const env: Record<string, string> = {
      ...agentEnv,
      HTTP_PROXY: point.origin,
      http_proxy: point.origin,
      GROK_CONFIG: overlay,
    };
    delete env.NO_PROXY;
    delete env.no_proxy;
    return { meter, env };
  }

  /** No metering point: side calls are estimated (the caller turned the metering point off). */
  static estimating(): SideCallMeter {
    return new SideCallMeter({ kind: "own", why: "the metering point is off (meterModelRoute: false)" }, undefined);
  }

  /** True when the metering point is on grok's model route. */
  get metered(): boolean {
    return this.point !== undefined;
  }

  /**
   * A turn begins: later calls without its request id are its side calls; its budget is kept for every call.
   * `overBudget` ends the turn (BUDGET_EXCEEDED) when the metering point refuses one of its own calls; it is called
   * before the refusal is answered, so the turn's end is the budget's, not grok's failed call.
   */
  beginTurn(
    promptId: string,
    budget: TurnBudget | undefined,
    costOf?: (usage: Usage) => number | undefined,
    overBudget?: (diagnostic: Diagnostic) => void,
  ): void {
    this.point?.beginTurn(promptId);
    this.turn = budget
      ? { promptId, budget, ...(costOf ? { costOf } : {}), ...(overBudget ? { overBudget } : {}) }
      : undefined;
  }

  /**
   * The metering point's question before it forwards a call of the turn (metering/call-admission.ts): a main call
   * refused once the budget is spent ends the turn over budget before the refusal is answered.
   */
  private admit(call: PendingCall): string | undefined {
    // grok may send a cancelled turn's next call late; once a new turn began it arrives filed under that turn.
    if (call.reqId !== undefined && this.endedOverBudget.includes(call.reqId))
      return "the turn this call belongs to ended over its budget";
    const turn = this.turn;
    if (!turn || call.promptId !== turn.promptId || !this.point) return undefined;
    const verdict = admitCall(call, this.point.startedOf(turn.promptId), turn.budget, turn.costOf);
    if (verdict.crossed) {
      try {
        turn.overBudget?.(verdict.crossed);
      } catch {
        // Ending the turn is the session's; a failure there must not let the call through.
      }
    }
    return verdict.refused;
  }

  /**
   * The turn's result with the calls grok did not report (`sideCalls`), once they finished; a turn the side calls
   * took over its token budget says so (BUDGET_EXCEEDED), even though its text is complete.
   */
  async finishTurn(result: TurnResult, budget: TurnBudget | undefined): Promise<TurnResult> {
    let sideCalls;
    if (this.point) {
      // Only a turn that ended normally has a summary to wait for; after a cancel or a failure grok drops its
      // requests, and a stuck one must not hold the turn's result.
      const normal = result.stopReason === "end_turn";
      await this.point.settled(
        result.promptId,
        normal ? SIDE_CALL_WAIT_MS : ABANDONED_CALL_WAIT_MS,
        normal ? SIDE_CALL_GRACE_MS : 0,
      );
      const calls = this.point.callsOf(result.promptId);
      this.point.forget(result.promptId);
      sideCalls = meterMissedTurn(calls, result) ? estimateGrokSideCalls(result) : sideCallsFromMeter(calls, result);
    } else {
      sideCalls = estimateGrokSideCalls(result);
    }
    if (this.turn?.promptId === result.promptId) this.turn = undefined;
    if (result.diagnostic?.code === "BUDGET_EXCEEDED") {
      this.endedOverBudget.push(result.promptId);
      if (this.endedOverBudget.length > ENDED_OVER_BUDGET_KEPT) this.endedOverBudget.shift();
    }
    if (sideCalls.length === 0) return result;
    const withSides: TurnResult = { ...result, sideCalls };
    const reported = result.usage?.totalTokens ?? (result.usage?.inputTokens ?? 0) + (result.usage?.outputTokens ?? 0);
    const total = reported + sideCallTokens(sideCalls);
    if (budget?.maxTokens !== undefined && !result.diagnostic && total > budget.maxTokens) {
      withSides.diagnostic = {
        code: "BUDGET_EXCEEDED",
        message: `The turn's model calls, with the ones grok makes on its own (turn summary, title), came to ${total} tokens, more than its budget of ${budget.maxTokens}; its text is complete.`,
      };
    }
    return withSides;
  }

  async close(): Promise<void> {
    await this.point?.close();
  }
}
