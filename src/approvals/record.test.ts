import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { isSeatError } from "../errors.js";
import { createPermissionGate, parsePolicyFlags } from "../permissions/index.js";
import { ApprovalQueue } from "./queue.js";
import { answerApproval } from "../supervision/approvals.js";
import { approvalRecordsDir, recordApprovalsIn } from "./record.js";

const request = {
  sessionId: "s",
  toolCall: { toolCallId: "c", kind: "execute", title: "Run ls", rawInput: { command: "ls" } },
  options: [{ optionId: "reject-once", name: "No", kind: "reject_once" }],
} as unknown as RequestPermissionRequest;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "no error";
  } catch (error) {
    assert.ok(isSeatError(error));
    return error.code;
  }
}

test("a run's approval records let a late answer hear APPROVAL_EXPIRED or ALREADY_ANSWERED after the run is gone; no record is NOT_FOUND; records hold no target", async () => {
  const home = mkdtempSync(join(tmpdir(), "gs-records-"));
  const env = { GROK_SEAT_HOME: home, HOME: home };
  try {
    const dir = approvalRecordsDir(env);
    recordApprovalsIn(dir);
    const queue = new ApprovalQueue({ owner: () => ({ kind: "session", id: "rec" }), timeoutMs: 60_000 });
    const gate = createPermissionGate({ policy: parsePolicyFlags({}) });
    const decided = gate.decide(request, { approver: queue.approver(), timeoutMs: 60_000 });
    for (let i = 0; queue.list().length === 0 && i < 400; i += 1) await new Promise((r) => setTimeout(r, 5));
    const id = queue.list()[0]!.id;
    const file = join(dir, `${id}.json`);
    assert.equal(JSON.parse(readFileSync(file, "utf8")).state, "pending");
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    queue.close(); // the turn ended: the approval expires
    await decided;
    const record = JSON.parse(readFileSync(file, "utf8"));
    assert.deepEqual(
      { state: record.state, why: record.why, decision: record.decision },
      { state: "expired", why: "turn-ended", decision: "deny" },
    );
    assert.ok(!readFileSync(file, "utf8").includes('ls"'), "no target in a record");

    // As another process would see it once this run is gone: a pending record of a dead pid, an answered one.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const write = (rid: string, fields: Record<string, unknown>) =>
      writeFileSync(
        join(dir, `${rid}.json`),
        JSON.stringify({
          schema: "grok-seat.approval-record.v1",
          id: rid,
          deadline: new Date(Date.now() + 60_000).toISOString(),
          at: new Date().toISOString(),
          ...fields,
        }),
      );
    write("ap_00000000000000a1", { pid: dead, state: "pending" });
    write("ap_00000000000000a2", { pid: dead, state: "answered", decision: "allow", by: "alice" });
    write("ap_00000000000000a3", { pid: dead, state: "expired", decision: "deny", why: "timeout" });
    assert.equal(
      await codeOf(answerApproval("ap_00000000000000a1", { decision: "allow" }, { env })),
      "APPROVAL_EXPIRED",
    );
    assert.equal(
      await codeOf(answerApproval("ap_00000000000000a2", { decision: "deny" }, { env })),
      "APPROVAL_ALREADY_ANSWERED",
    );
    assert.equal(
      await codeOf(answerApproval("ap_00000000000000a3", { decision: "allow" }, { env })),
      "APPROVAL_EXPIRED",
    );
    assert.equal(
      await codeOf(answerApproval("ap_00000000000000a4", { decision: "allow" }, { env })),
      "APPROVAL_NOT_FOUND",
    );

    // Records older than a day are pruned when the next approval is asked.
    const old = new Date(Date.now() - 2 * 24 * 60 * 60_000);
    utimesSync(join(dir, "ap_00000000000000a2.json"), old, old);
    const second = new ApprovalQueue({ owner: () => ({ kind: "session", id: "rec2" }), timeoutMs: 60_000 });
    const again = gate.decide(request, { approver: second.approver(), timeoutMs: 60_000 });
    for (let i = 0; second.list().length === 0 && i < 400; i += 1) await new Promise((r) => setTimeout(r, 5));
    assert.ok(!readdirSync(dir).includes("ap_00000000000000a2.json"));
    second.close();
    await again;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
