/*
 * Control state: the one typed answer a holder's control socket gives to `state` — what it is (a plain run or a
 *   named session), its id, name, agent, cwd and pid, and its attention snapshot — for `seat ps` and the board.
 * Owns: the ControlState shape, the one builder every door uses (describeControlState: `seat run`, `seat run -s`,
 *   the MCP `run` tool, a library openSession), and the check both ends apply (controlStateProblem: the server
 *   before it answers, the listing before it believes an answer).
 * Does not own: the socket (socket.ts), the listing (supervision/), the snapshot itself (the session's tracker).
 * Invariant: every `state` answer carries a kind; an answer that does not fit the schema is never sent and
 *   never listed as what it claims.
 */
import { ATTENTION_STATES, type AttentionSnapshot, type AttentionState, type WaitingOn } from "../attention/index.js";

/** What a control socket's holder is: a plain run (no name) or a named session. */
export type ControlStateKind = "run" | "named-session";

/** The `state` answer of every control socket (without the `ok: true` the socket adds). */
export interface ControlState {
  kind: ControlStateKind;
  /** The agent session id, or `pid-<pid>` before the agent named one. */
  id: string;
  /** A named session's name. */
  name?: string;
  /** The agent profile's name (`grok`, `codex`, …; `custom` for an agent command). */
  agent: string;
  /** Where the agent works (its worktree when it has one). */
  cwd: string;
  /** The holder's pid. */
  pid: number;
  state: AttentionState;
  /** When the state began (ISO 8601). */
  since: string;
  waitingOn?: WaitingOn;
  reason?: string;
}

/** Who holds a control socket, as the door that opened the turn knows it. */
export interface ControlSubject {
  kind: ControlStateKind;
  /** Required for a named session. */
  name?: string;
  agent: string;
  cwd: string;
}

/** The part of a session the builder reads. */
export interface DescribedSession {
  readonly id: string | undefined;
  attention(): AttentionSnapshot;
}

/** The `state` answer of `session` held by this process for `subject`, read fresh on each call. */
export function describeControlState(session: DescribedSession, subject: ControlSubject): () => ControlState {
  return () => {
    const snapshot = session.attention();
    return {
      kind: subject.kind,
      id: session.id ?? `pid-${process.pid}`,
      ...(subject.name !== undefined ? { name: subject.name } : {}),
      agent: subject.agent,
      cwd: subject.cwd,
      pid: process.pid,
      state: snapshot.state,
      since: snapshot.since,
      ...(snapshot.waitingOn ? { waitingOn: snapshot.waitingOn } : {}),
      ...(snapshot.reason ? { reason: snapshot.reason } : {}),
    };
  };
}

const KINDS: readonly string[] = ["run", "named-session"];
const WAITING_ON: readonly string[] = ["approval", "question"];

/** Why `value` is not a ControlState, or null when it is one (extra keys, such as the socket's `ok`, are allowed). */
export function controlStateProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null) return "not an object";
  const v = value as Record<string, unknown>;
  if (typeof v.kind !== "string" || !KINDS.includes(v.kind))
    return `kind ${JSON.stringify(v.kind)} is not one of ${KINDS.join(", ")}`;
  if (typeof v.id !== "string" || v.id === "") return "id is not a non-empty string";
  if (v.kind === "named-session" ? typeof v.name !== "string" || v.name === "" : v.name !== undefined)
    return v.kind === "named-session" ? "a named session's answer has no name" : "a plain run's answer carries a name";
  if (typeof v.agent !== "string" || v.agent === "") return "agent is not a non-empty string";
  if (typeof v.cwd !== "string" || v.cwd === "") return "cwd is not a non-empty string";
  if (typeof v.pid !== "number" || !Number.isInteger(v.pid) || v.pid <= 0) return "pid is not a positive integer";
  if (typeof v.state !== "string" || !(ATTENTION_STATES as readonly string[]).includes(v.state))
    return `state ${JSON.stringify(v.state)} is not an attention state`;
  if (typeof v.since !== "string") return "since is not a string";
  if (v.waitingOn !== undefined && (typeof v.waitingOn !== "string" || !WAITING_ON.includes(v.waitingOn)))
    return `waitingOn ${JSON.stringify(v.waitingOn)} is not one of ${WAITING_ON.join(", ")}`;
  if (v.reason !== undefined && typeof v.reason !== "string") return "reason is not a string";
  return null;
}

/** `value` as a ControlState when it fits the schema, else null. */
export function parseControlState(value: unknown): ControlState | null {
  return controlStateProblem(value) === null ? (value as ControlState) : null;
}
