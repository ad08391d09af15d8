/*
 * Approval display: how a held approval is shown to a person — in full, or in a short listing that says it is cut.
 * Owns: maskView() (a listing process masks the secret values it knows too, value-only, and says so), visibleText()
 *   (control and bidirectional-override characters shown as escapes, so a terminal or page cannot hide or reorder
 *   part of a command), targetText() and shortTarget() (the one-line summary, cut only with its full length said).
 * Does not own: what the target is (target.ts) or where it is printed (cli/, mcp/, board/).
 * Invariant: nothing here masks by shape or drops characters silently; a cut summary always names its full length
 *   and how to see it all.
 * Spec: docs/supervision.md#approvals.
 */
import { maskSecretValues } from "../internal/redact.js";
import type { PendingApproval } from "../acp/index.js";

/** How many characters of a target the one-line summary shows before it says it is cut. */
export const SHORT_TARGET_CHARS = 200;

/**
 * `view` with the secret values this process knows masked too (value-only, as target.ts does at the source), and
 * `masked` naming every name masked here or there. The digest is untouched: it is of the exact target.
 */
export function maskView(view: PendingApproval): PendingApproval {
  const names = new Set(view.masked ?? []);
  const mask = (text: string): string => {
    const out = maskSecretValues(text);
    for (const name of out.masked) names.add(name);
    return out.text;
  };
  const target: PendingApproval["target"] = {};
  if (typeof view.target?.command === "string") target.command = mask(view.target.command);
  if (Array.isArray(view.target?.paths)) target.paths = view.target.paths.map((p) => mask(String(p)));
  if (typeof view.target?.toolName === "string") target.toolName = mask(view.target.toolName);
  const { masked: _m, ...rest } = view;
  return { ...rest, title: mask(String(view.title)), target, ...(names.size > 0 ? { masked: [...names].sort() } : {}) };
}

// C0 and C1 controls but tab and newline, DEL, zero-width and bidirectional controls, line/paragraph separators.
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * `text` with every character that a terminal or a page would not show as itself written as an escape (`\x1b`,
 * `\u202e`); with `oneLine`, newlines and tabs too (`\n`, `\t`). Printable text is left exactly as it is.
 */
export function visibleText(text: string, oneLine = false): string {
  const out = text.replace(HIDDEN, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
  return oneLine ? out.replace(/\n/g, "\\n").replace(/\t/g, "\\t") : out;
}

/** The target as one text: the command, else the paths (comma-separated), else the tool name, else the title. */
export function targetText(view: PendingApproval): string {
  return view.target.command ?? view.target.paths?.join(", ") ?? view.target.toolName ?? view.title;
}

/**
 * The target on one line, visible: whole when it fits SHORT_TARGET_CHARS, else its head followed by
 * `… [cut: N of M characters shown; <how to see it all>]`.
 */
export function shortTarget(view: PendingApproval, howToSeeAll: string): string {
  const text = visibleText(targetText(view), true);
  if (text.length <= SHORT_TARGET_CHARS) return text;
  return `${text.slice(0, SHORT_TARGET_CHARS)}… [cut: ${SHORT_TARGET_CHARS} of ${text.length} characters shown; ${howToSeeAll}]`;
}
