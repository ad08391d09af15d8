/*
 * Board page: the one server-rendered HTML page of attention and approvals.
 * Owns: escaping, the page (live items and their states, pending approvals with approve / deny forms, a link
 *   to the queues view) and the small error page.
 * Does not own: serving, auth or same-origin checks (server.ts), the data (attention/), the queues view
 *   (bull-board's own).
 * Invariant: every value that reaches the page passes through escapeHtml; approve and deny are POST forms
 *   carrying the access token, so nothing on a GET changes anything.
 */
import type { LiveItem } from "../attention/listing.js";
import type { PendingApproval } from "../attention/approvals-source.js";

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
  const cells = [item.kind, item.id, item.agent, state, item.since ?? "-", String(item.pendingApprovals), item.cwd ?? (item.host ? `@${item.host}` : "-")];
  return `<tr class="${escapeHtml(item.state)}" data-kind="${escapeHtml(item.kind)}" data-id="${escapeHtml(item.id)}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`;
}

function approvalRow(approval: PendingApproval, token: string, base: string): string {
  const owner = `${approval.owner.kind} ${approval.owner.name ?? approval.owner.id}${approval.owner.host ? ` @${approval.owner.host}` : ""}`;
  const target = approval.target.command ?? approval.target.paths?.join(", ") ?? approval.target.toolName ?? "";
  const form = (decision: "allow" | "deny", label: string) =>
    `<form method="post" action="${escapeHtml(base)}approvals/${encodeURIComponent(approval.id)}/${decision}"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit" name="decision" value="${decision}">${label}</button></form>`;
  const cells = [approval.id, approval.category, approval.title, target, owner, approval.askedAt, approval.deadline];
  return `<tr data-approval="${escapeHtml(approval.id)}">${cells.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}<td>${form("allow", "Approve")}${form("deny", "Deny")}</td></tr>`;
}

/** The whole page. */
export function renderBoard(view: BoardView): string {
  const items = view.items.length === 0
    ? "<p>Nothing is live.</p>"
    : `<table id="items"><thead><tr><th>kind</th><th>name/id</th><th>agent</th><th>state</th><th>since</th><th>approvals</th><th>cwd</th></tr></thead><tbody>${view.items.map(itemRow).join("")}</tbody></table>`;
  const approvals = view.approvals === null
    ? "<p>No approvals source is connected.</p>"
    : view.approvals.length === 0
      ? "<p>No approval is pending.</p>"
      : `<table id="approvals"><thead><tr><th>id</th><th>category</th><th>title</th><th>target</th><th>owner</th><th>asked</th><th>deadline</th><th></th></tr></thead><tbody>${view.approvals.map((a) => approvalRow(a, view.token, view.base ?? "/")).join("")}</tbody></table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>seat board</title><style>${STYLE}</style></head><body>
<h1>seat board</h1>${view.notice ? `<p class="notice">${escapeHtml(view.notice)}</p>` : ""}
${view.queuesPath ? `<p><a href="${escapeHtml(view.queuesPath)}">Fleet queues (bull-board)</a></p>` : ""}
<h2>Live</h2>${items}
<h2>Pending approvals</h2>${approvals}
</body></html>`;
}

/** A small error page (status and message, escaped). */
export function renderError(status: number, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status}</title></head><body><h1>${status}</h1><p>${escapeHtml(message)}</p></body></html>`;
}
