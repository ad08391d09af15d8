/*
 * Link pages: what an Approve or Deny link from a notification shows — the approval's exact command and one
 *   button that confirms — and what the confirm answers.
 * Owns: those two pages. Does not own: checking the link (links.ts), serving it (server.ts).
 * Invariant: a link page carries no board token and no link to the board's secret path; the only thing on it
 *   that acts is a POST form back to the very link; the command is shown whole and exact (value-masked only,
 *   control characters as escapes), as the board's own detail page shows it.
 */
import { redactText } from "../internal/redact.js";
import type { PendingApproval } from "../supervision/index.js";
import { maskView, targetText, visibleText } from "../approvals/index.js";
import { escapeHtml } from "./page.js";
import type { LinkDecision } from "../approval-links/index.js";

const STYLE = `body{font:16px system-ui,sans-serif;margin:1rem;color:#222;max-width:48rem}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.6rem}
th,td{text-align:left;padding:.2rem .5rem;vertical-align:top}button{font-size:1.2rem;padding:.7rem 1.4rem}.allow{background:#1a7f37;color:#fff}.deny{background:#b42318;color:#fff}`;

function shell(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The confirm page of a link: the exact command and one button that POSTs back to `action` (the link itself). */
export function renderLinkConfirm(shown: PendingApproval, decision: LinkDecision, action: string): string {
  const approval = maskView(shown);
  const verb = decision === "allow" ? "Approve" : "Deny";
  const field = (name: string, value: string) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`;
  const owner = `${approval.owner.kind} ${approval.owner.name ?? approval.owner.id}${approval.owner.host ? ` @${approval.owner.host}` : ""}`;
  const rows = [
    field("approval", approval.id),
    field("category", approval.category),
    field("owner", owner),
    field("deadline", approval.deadline),
    field("title", visibleText(approval.title, true)),
    ...(approval.masked?.length
      ? [field("masked", `[${approval.masked.join(", ")}]: shown as [redacted]; the call runs with the real values`)]
      : []),
  ];
  const target =
    approval.target.command !== undefined
      ? `<h2>Command (${approval.target.command.length} characters, exactly as it will run)</h2><pre id="target">${escapeHtml(visibleText(approval.target.command))}</pre>`
      : `<h2>Target</h2><pre id="target">${escapeHtml(visibleText(targetText(approval)))}</pre>`;
  return shell(
    `${verb} ${approval.id}?`,
    `<h1>${verb} this call?</h1><table id="approval">${rows.join("")}</table>${target}
<p>digest <code>${escapeHtml(approval.digest)}</code></p>
<form method="post" action="${escapeHtml(action)}"><button type="submit" id="confirm" class="${decision}">${verb}</button></form>
<p>Opening this page answered nothing; only the button does, once.</p>`,
  );
}

/** The page after a confirm, or a refusal: a heading and one line (redacted, escaped). */
export function renderLinkOutcome(heading: string, message: string): string {
  return shell(
    heading,
    `<h1 id="outcome">${escapeHtml(heading)}</h1><p id="detail">${escapeHtml(redactText(message))}</p>`,
  );
}
