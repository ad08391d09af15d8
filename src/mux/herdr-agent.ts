/*
 * Herdr agent check: does this Herdr pane still say it hosts the expected agent session?
 * Owns: the agent / agent_session rule of ADR 0224 as a pure three-state check, for any agent name.
 * Does not own: fetching PaneInfo (herdr-client.ts) or kernel process proof (identity/).
 * Invariant: the nested `agent_session.agent` is accepted only when the top-level `agent` is absent;
 *   when both exist they must agree; null, contradictory, missing source/id, or a changed session,
 *   terminal or pid refuses. Only "match" may authorize control; "unknown" never does.
 * Spec: shared reference herdr-api.md §4, §6.
 */
import type { HerdrPaneInfo, HerdrProcessInfo } from "./herdr-wire.js";

/** What the controller expects the pane to be. */
export interface ExpectedHerdrAgent {
  /** Agent name as Herdr spells it: "grok", "opencode", "pi", … */
  agent: string;
  /** The agent's native session id (grok: the `--session-id` UUID). */
  sessionId: string;
  /** For agents whose session ref is a file (Herdr kind "path", e.g. Pi): the absolute session path. */
  sessionPath?: string;
  /** The argv program's pid recorded at launch; checked against `pane.process_info.shell_pid`. */
  pid?: number;
  /** The Herdr terminal_id recorded at launch. */
  terminalId?: string;
  /** The Herdr pane id recorded at launch. */
  paneId?: string;
}

/** The verdict of checkHerdrAgent with the reason in words. */
export interface HerdrAgentVerdict {
  verdict: "match" | "mismatch" | "unknown";
  reason: string;
  /** The agent name the verdict relied on, when one could be read. */
  agent?: string;
}

const refuse = (verdict: "mismatch" | "unknown", reason: string): HerdrAgentVerdict => ({ verdict, reason });

/**
 * Judge Herdr's agent fields for one pane against what the controller launched. Pure; pass the
 * `pane.process_info` payload when `expected.pid` is set, or the verdict is at best "unknown".
 */
export function checkHerdrAgent(
  paneInfo: HerdrPaneInfo | null | undefined,
  expected: ExpectedHerdrAgent,
  processInfo?: HerdrProcessInfo,
): HerdrAgentVerdict {
  if (typeof paneInfo !== "object" || paneInfo === null) return refuse("unknown", "Herdr returned no pane info");
  const pane = paneInfo as HerdrPaneInfo & Record<string, unknown>;
  if (expected.paneId !== undefined && pane.pane_id !== expected.paneId) {
    return refuse("mismatch", `pane id changed: expected ${expected.paneId}, Herdr reports ${String(pane.pane_id)}`);
  }
  if (expected.terminalId !== undefined && pane.terminal_id !== expected.terminalId) {
    return refuse(
      "mismatch",
      `terminal changed: expected ${expected.terminalId}, Herdr reports ${String(pane.terminal_id)}`,
    );
  }
  if (expected.pid !== undefined) {
    const pid = processInfo?.shell_pid;
    if (pid === undefined)
      return refuse("unknown", `pid ${expected.pid} could not be confirmed: no shell_pid from pane.process_info`);
    if (pid !== expected.pid)
      return refuse("mismatch", `pid changed: expected ${expected.pid}, Herdr reports shell_pid ${pid}`);
  }

  const session = pane.agent_session as unknown;
  if (session === null) return refuse("unknown", "agent_session is null");
  if (session === undefined)
    return refuse("unknown", "Herdr holds no agent_session for this pane, so the session cannot be confirmed");
  if (typeof session !== "object") return refuse("unknown", "agent_session is not an object");
  const { source, agent: nestedAgent, kind, value } = session as Record<string, unknown>;
  if (typeof source !== "string" || source === "") return refuse("unknown", "agent_session has no source");
  if (typeof value !== "string" || value === "") return refuse("unknown", "agent_session has no id");
  if (typeof nestedAgent !== "string" || nestedAgent === "") return refuse("unknown", "agent_session has no agent");
  if (source !== `herdr:${nestedAgent}`) {
    return refuse("mismatch", `agent_session source ${source} contradicts its agent ${nestedAgent}`);
  }

  let agent: string;
  if (!("agent" in pane) || pane.agent === undefined) {
    agent = nestedAgent; // Herdr omits the top-level agent when it does not detect the process (wrapper, exited, renamed)
  } else if (pane.agent === null) {
    return refuse("unknown", "top-level agent is null");
  } else if (typeof pane.agent !== "string" || pane.agent === "") {
    return refuse("unknown", "top-level agent is not a name");
  } else if (pane.agent !== nestedAgent) {
    return refuse("mismatch", `top-level agent ${pane.agent} contradicts agent_session.agent ${nestedAgent}`);
  } else {
    agent = pane.agent;
  }

  if (agent !== expected.agent)
    return { ...refuse("mismatch", `pane reports agent ${agent}, expected ${expected.agent}`), agent };
  if (kind === "path") {
    if (expected.sessionPath === undefined)
      return { ...refuse("unknown", `agent_session is a path (${value}), not a session id`), agent };
    if (value !== expected.sessionPath)
      return {
        ...refuse("mismatch", `session changed: expected ${expected.sessionPath}, Herdr reports ${value}`),
        agent,
      };
    return { verdict: "match", reason: `${agent} session ${value} confirmed by ${source}`, agent };
  }
  if (kind !== "id")
    return { ...refuse("unknown", `agent_session kind ${String(kind)} is neither id nor path`), agent };
  if (value !== expected.sessionId) {
    return { ...refuse("mismatch", `session changed: expected ${expected.sessionId}, Herdr reports ${value}`), agent };
  }
  return { verdict: "match", reason: `${agent} session ${value} confirmed by ${source}`, agent };
}
