/*
 * Agent checks: the rows of docs/agents.md — every check the cross-agent suite runs on each agent, in order.
 * Owns: the check ids (what a test records) and their one-line descriptions (what the table shows).
 * Does not own: running checks (the *.test.ts beside this) or rendering (scripts/run-agent-tests.mjs).
 * Invariant: a test records only ids listed here; the table shows every id for every agent ("not run" when
 *   no test recorded it), so a check that silently stopped running is visible.
 */

/** One check of the cross-agent suite. */
export interface AgentCheck {
  id: string;
  label: string;
  /** The agents the check is about, when not all (the others show "n/a (<agents> only)"). */
  only?: readonly string[];
}

/** Every check, in table order. */
export const AGENT_CHECKS: readonly AgentCheck[] = Object.freeze([
  { id: "text-turns", label: "text turn streamed in chunks, and a second turn in the same session" },
  {
    id: "host-tools",
    label:
      "host tools answered by the host through the bridge: object, union and scalar roots (original argument shapes)",
  },
  {
    id: "canary",
    label:
      "canary in the parent env absent from environ and cmdline of every process of the session, host-tools MCP child included",
  },
  { id: "dispose", label: "dispose: no process of the session survives" },
  { id: "shell-allow", label: "shell command allowed by the policy runs (marker file exists)" },
  { id: "shell-block", label: "shell command blocked by the policy never runs (marker file never exists)" },
  {
    id: "cli-json",
    label: "`seat run --agent X --json --block execute,edit` streams NDJSON, denies the command, marker absent",
  },
  {
    id: "approval-held",
    label:
      "`seat run --agent X --ask execute,edit`: the shell command's permission request is held, listed by `seat approvals` and allowed by `seat approve` from other processes; it runs exactly once",
  },
  { id: "cancel", label: "cancel mid-turn: the turn resolves `cancelled`, text so far kept, the next turn works" },
  {
    id: "diag-empty-failure",
    label: "diagnostics rule 2: a failed model call with no text resolves with a diagnostic (never rejects)",
  },
  {
    id: "diag-partial-text",
    label: "diagnostics rule 5: text streamed before a failure is kept, no diagnostic replaces it",
  },
  { id: "rules-text", label: "rules text (host-tool names, skills) reaches the model request" },
  { id: "model-flag", label: "`model` option reaches the model request" },
  {
    id: "resume",
    label:
      "`seat run -s NAME --agent X` in three processes back to back: the 2nd and 3rd model requests carry the 1st turn's nonce (where load/resume is advertised)",
  },
  {
    id: "attach-refused",
    label:
      "why grok-seat refuses to attach a Gemini session, shown on the agent itself: a load in the session's first UTC minute finds no session, and a later one works once, then the session is gone after Gemini's next start",
    only: ["gemini"],
  },
  {
    id: "sigkill-escalation",
    label: "agent tree ignoring SIGTERM (relaunched child included): dispose escalates to SIGKILL, zero survivors",
    only: ["gemini"],
  },
  {
    id: "throwaway-home",
    label: "`seat agents` / `seat probe --agent X` start agents under a throwaway HOME: the real HOME gets nothing new",
  },
  {
    id: "usage",
    label:
      "each turn's tokens (ACP `usage` or `_meta.quota.token_count`) reach the ledger of a named session: its totals equal the mock's counts, model calls unknown",
  },
  {
    id: "no-key",
    label: "no credentials: `seat run --agent X` exits 4 (ACP_NOT_AUTHENTICATED) naming the agent's own key variables",
    only: ["codex"],
  },
  {
    id: "mcp-delegation",
    label:
      "delegation through `seat mcp` given in the agent's own MCP config: its model calls `run`, a real grok turn answers, the answer is in its next model request",
  },
  {
    id: "mcp-add",
    label:
      "the agent's own `mcp add` command, as docs/mcp-hosts.md shows it, writes the same `seat` entry as the doc's config snippet",
    only: ["claude", "codex"],
  },
  {
    id: "mcp-timeout",
    label:
      "a tool timeout shorter than the turn, set in the agent's own config: it fires although progress streams (no reset on progress); the agent cancels the call; `seat mcp` records the turn cancelled",
    only: ["claude", "codex", "gemini"],
  },
]);
