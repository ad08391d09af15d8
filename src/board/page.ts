/*
 * Board page: the one server-rendered HTML page of attention and approvals.
 * Owns: escaping, the page (live items and their states, pending approvals with approve / deny forms, a link
 *   to the queues view), one approval's detail page (its whole target) and the small error page.
 * Does not own: serving, auth or same-origin checks (server.ts), the data (attention/), the queues view
 *   (bull-board's own).
 * Invariant: every value that reaches the page passes through escapeHtml; approve and deny are POST forms
 *   carrying the access token and the digest of the exact target shown, so nothing on a GET changes anything
 *   and an answer lands only on what was shown. A target is shown exact (value-masked only, and the page says
 *   which names; control characters as escapes): in the table cut only with its length said and a link to the
 *   detail page, which shows it whole.
 */
import { redact, redactText } from "../internal/redact.js";
import type { PendingApproval } from "../supervision/index.js";
import type { LiveItem } from "../listing/index.js";
import { maskView, shortTarget, targetText, visibleText } from "../approvals/index.js";

/** Escapes `value` for HTML text and double-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? "").replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the page shows. */
export interface BoardView {
  items: readonly LiveItem[];
  /** Null when the board has no approvals source. */
  approvals: readonly PendingApproval[] | null;
  /** The access token, embedded in each form (the POST handler checks it). */
  token: string;
  /** The board's secret base path (`/<base>/`): every form posts under it. Default "/". */
  base?: string;
  /** Path of the bull-board view, when the board serves one. */
  queuesPath?: string;
  /** A note shown at the top (the outcome of the last answer). */
  notice?: string;
}

const STYLE = `body{font:14px system-ui,sans-serif;margin:1.5rem;color:#222}table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left}th{background:#f3f3f3}.waiting{background:#fff3c4}
form{display:inline}button{margin-right:.3rem}.notice{padding:.5rem;background:#e8f4ff}`;

function itemRow(item: LiveItem): string {
  const state = item.waitingOn ? `${item.state} (${item.waitingOn})` : item.state;
  const cells = [
    item.kind,
    item.id,
    item.agent,
    state,
    item.since ?? "-",
    String(item.pendingApprovals),
    item.cwd ?? (item.host ? `@${item.host}` : "-"),
  ];
  return `<tr class="${escapeHtml(item.state)}" data-kind="${escapeHtml(item.kind)}" data-id="${escapeHtml(item.id)}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`;
}

function ownerOf(approval: PendingApproval): string {
  return `${approval.owner.kind} ${approval.owner.name ?? approval.owner.id}${approval.owner.host ? ` @${approval.owner.host}` : ""}`;
}

/** The path of an approval's detail page under the board's secret base path (`/<base>/`). */
export function approvalPath(id: string, base = "/"): string {
  return `${base}approvals/${encodeURIComponent(id)}`;
}

/** Approve and Deny: POST forms with the token and the digest of the exact target shown. */
function answerForms(approval: PendingApproval, token: string, base: string): string {
  const form = (decision: "allow" | "deny", label: string) =>
    `<form method="post" action="${escapeHtml(approvalPath(approval.id, base))}/${decision}"><input type="hidden" name="token" value="${escapeHtml(token)}"><input type="hidden" name="digest" value="${escapeHtml(approval.digest)}"><button type="submit" name="decision" value="${decision}">${label}</button></form>`;
  return `${form("allow", "Approve")}${form("deny", "Deny")}`;
}

function maskedNote(approval: PendingApproval): string {
  return approval.masked?.length ? ` (masked: [${approval.masked.join(", ")}])` : "";
}

function approvalRow(shown: PendingApproval, token: string, base: string): string {
  const approval = maskView(shown);
  const target = `${shortTarget(approval, "open the approval to see it whole")}${maskedNote(approval)}`;
  const cells = [
    approval.id,
    approval.category,
    visibleText(approval.title, true),
    target,
    ownerOf(approval),
    approval.askedAt,
    approval.deadline,
  ];
  const link = `<a href="${escapeHtml(approvalPath(approval.id, base))}">whole target</a>`;
  return `<tr data-approval="${escapeHtml(approval.id)}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}<td class="digest"><code>${escapeHtml(approval.digest)}</code></td><td>${link} ${answerForms(approval, token, base)}</td></tr>`;
}

/** One approval's page: every field and its whole target, exact (control characters as escapes), with its forms. */
export function renderApproval(shown: PendingApproval, token: string, base = "/"): string {
  const approval = maskView(shown);
  const field = (name: string, value: string) => `<tr><th>${escapeHtml(name)}</th><td>${escapeHtml(value)}</td></tr>`;
  const rows = [
    field("id", approval.id),
    field("category", approval.category),
    field("owner", ownerOf(approval)),
    field("asked", approval.askedAt),
    field("deadline", approval.deadline),
    field("digest", approval.digest),
    field("title", visibleText(approval.title, true)),
    ...(approval.masked?.length
      ? [
          field(
            "masked",
            `[${approval.masked.join(", ")}]: their values are shown as [redacted]; the call runs with the real values`,
          ),
        ]
      : []),
    ...(approval.target.toolName !== undefined ? [field("tool", visibleText(approval.target.toolName, true))] : []),
    ...(approval.target.paths ?? []).map((p) => field("path", visibleText(p, true))),
  ];
  const command =
    approval.target.command !== undefined
      ? `<h2>Command (${approval.target.command.length} characters, exactly as it will run)</h2><pre id="target">${escapeHtml(visibleText(approval.target.command))}</pre>`
      : `<h2>Target</h2><pre id="target">${escapeHtml(visibleText(targetText(approval)))}</pre>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>approval ${escapeHtml(approval.id)}</title><style>${STYLE}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.5rem}</style></head><body>
<p><a href="${escapeHtml(base)}">back to the board</a></p><h1>Approval ${escapeHtml(approval.id)}</h1>
<table id="approval">${rows.join("")}</table>${command}
<p>${answerForms(approval, token, base)}</p>
</body></html>`;
}

/** The whole page. */
export function renderBoard(view: BoardView): string {
  // Everything the page shows passes the one redaction; the token its own forms carry is not content.
  view = {
    ...view,
    items: redact(view.items),
    approvals: redact(view.approvals),
    ...(view.notice ? { notice: redactText(view.notice) } : {}),
  };
  const items =
    view.items.length === 0
      ? "<p>Nothing is live.</p>"
      : `<table id="items"><thead><tr><th>kind</th><th>name/id</th><th>agent</th><th>state</th><th>since</th><th>approvals</th><th>cwd</th></tr></thead><tbody>${view.items.map(itemRow).join("")}</tbody></table>`;
  const approvals =
    view.approvals === null
      ? "<p>No approvals source is connected.</p>"
      : view.approvals.length === 0
        ? "<p>No approval is pending.</p>"
        : `<table id="approvals"><thead><tr><th>id</th><th>category</th><th>title</th><th>target</th><th>owner</th><th>asked</th><th>deadline</th><th>digest</th><th></th></tr></thead><tbody>${view.approvals.map((a) => approvalRow(a, view.token, view.base ?? "/")).join("")}</tbody></table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>seat board</title><style>${STYLE}</style></head><body>
<h1>seat board</h1>${view.notice ? `<p class="notice">${escapeHtml(view.notice)}</p>` : ""}
${view.queuesPath ? `<p><a href="${escapeHtml(view.queuesPath)}">Fleet queues (bull-board)</a></p>` : ""}
<h2>Live</h2>${items}
<h2>Pending approvals</h2>${approvals}
</body></html>`;
}

/** A small error page (status and message, escaped). */
export function renderError(status: number, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${escapeHtml(redactText(message))}</p></body></html>`;
}
