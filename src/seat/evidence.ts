/*
 * Late evidence: what grok's own session files say about a delivery after the controller lost sight of it.
 * Owns: reading $GROK_HOME/sessions/<encoded cwd>/<session id>/updates.jsonl for a prompt id, and
 *   reconciling a seat's open deliveries from it.
 * Does not own: the journal's rules (journal/) — evidence is appended to the original receipt there.
 * Invariant: evidence reconciles an existing delivery and never creates or re-sends one; completion
 *   needs a persisted turn_completed naming this session and prompt id.
 * Spec: grok-wire.md §10 (session files); docs/seat-protocol.md#late-evidence
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { DeliveryEvidence, DeliveryRecord, Journal } from "../journal/index.js";

/** The session directories of `sessionId` under $GROK_HOME/sessions (one per encoded cwd). */
async function sessionDirs(grokHome: string, sessionId: string): Promise<string[]> {
  const root = join(grokHome, "sessions");
  const cwds = await readdir(root).catch(() => [] as string[]);
  const dirs: string[] = [];
  for (const cwd of cwds) {
    const dir = join(root, cwd, sessionId);
    if ((await readdir(dir).catch(() => null)) !== null) dirs.push(dir);
  }
  return dirs;
}

/**
 * Evidence about `promptId` in grok's persisted updates of `sessionId`: consumed when a persisted update
 * carries the prompt id, completed when a turn_completed names it. Empty when nothing is there.
 */
export async function findSessionFileEvidence(
  grokHome: string,
  sessionId: string,
  promptId: string,
): Promise<DeliveryEvidence[]> {
  const found: DeliveryEvidence[] = [];
  for (const dir of await sessionDirs(grokHome, sessionId)) {
    const source = `grok session file ${join(dir, "updates.jsonl")}`;
    const text = await readFile(join(dir, "updates.jsonl"), "utf8").catch(() => "");
    let consumed = false;
    for (const line of text.split("\n")) {
      if (!line.includes(promptId)) continue;
      let entry: {
        params?: { sessionId?: unknown; update?: Record<string, unknown>; _meta?: Record<string, unknown> };
      };
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      const params = entry.params;
      if (params?.sessionId !== sessionId) continue;
      const update = params.update ?? {};
      if (update.sessionUpdate === "turn_completed" && update.prompt_id === promptId) {
        found.push({
          kind: "completed",
          source,
          sessionId,
          promptId,
          detail: { stopReason: update.stop_reason ?? null },
        });
      } else if (!consumed && (params._meta?.promptId === promptId || update.prompt_id === promptId)) {
        consumed = true;
        found.push({ kind: "consumed", source, sessionId, promptId, detail: String(update.sessionUpdate ?? "update") });
      }
    }
  }
  // Consumption before completion, so an uncertain delivery moves through the allowed states.
  return found.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "consumed" ? -1 : 1));
}

/** Appends late session-file evidence to the seat's open deliveries; returns the deliveries that moved. */
export async function reconcileFromSessionFiles(
  journal: Journal,
  seatId: string,
  grokHome: string,
  sessionId: string,
): Promise<DeliveryRecord[]> {
  const moved: DeliveryRecord[] = [];
  for (const delivery of journal.openDeliveries(seatId)) {
    if (delivery.state === "fenced") continue; // never dispatched: nothing of it can be in grok's files
    let last: DeliveryRecord | null = null;
    for (const evidence of await findSessionFileEvidence(grokHome, sessionId, delivery.promptId)) {
      const current = journal.getDelivery(delivery.promptId);
      if (current && current.state === "consumed" && evidence.kind === "consumed") continue;
      last = journal.recordEvidence(delivery.promptId, evidence) ?? last;
    }
    if (last && last.state !== delivery.state) moved.push(last);
  }
  return moved;
}
