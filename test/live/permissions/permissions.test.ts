/*
 * Live permission gate: the real grok 1.0.41 asks `session/request_permission` for a shell command
 * (`run_terminal_command`), and createPermissionGate answers it per policy. Whether the command ran is read
 * from the disk (a marker file it would write), never from what anyone reported.
 * One grok process serves every case: the session's decider forwards to the gate of the case being run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  createPermissionGate,
  parsePolicyFlags,
  type ApprovalRequest,
  type ApproverAnswer,
  type PermissionAudit,
  type PermissionGate,
  type PolicyFlags,
} from "../../../src/permissions/index.js";
import { createGatedSession } from "../../support/gated-session.js";
import { withLiveRig } from "../../support/live-turns.js";

interface Case {
  name: string;
  flags: PolicyFlags;
  /** The approver's answer; undefined means the gate has no approver. */
  approver?: ApproverAnswer;
  ran: boolean;
  asked: number;
  via: PermissionAudit["via"];
  reason?: PermissionAudit["reason"];
}

const CASES: Case[] = [
  { name: "allow", flags: { allow: ["execute"] }, approver: "deny", ran: true, asked: 0, via: "policy" },
  { name: "ask-allowed", flags: { ask: ["execute"] }, approver: "allow", ran: true, asked: 1, via: "approver" },
  { name: "ask-denied", flags: { ask: ["execute"] }, approver: "deny", ran: false, asked: 1, via: "approver" },
  { name: "ask-no-approver", flags: { ask: ["execute"] }, ran: false, asked: 0, via: "default", reason: "no-approver" },
  { name: "default-no-approver", flags: {}, ran: false, asked: 0, via: "default", reason: "no-approver" },
  { name: "block", flags: { block: ["execute"] }, approver: "allow", ran: false, asked: 0, via: "policy" },
  { name: "unrestricted", flags: { unrestricted: true }, approver: "deny", ran: true, asked: 0, via: "policy" },
  {
    name: "unrestricted-ask",
    flags: { unrestricted: true, ask: ["execute"] },
    approver: "deny",
    ran: false,
    asked: 1,
    via: "approver",
  },
  {
    name: "unrestricted-block",
    flags: { unrestricted: true, block: ["execute"] },
    approver: "allow",
    ran: false,
    asked: 0,
    via: "policy",
  },
];

const marker = (name: string) => `marker-${name}.txt`;

test("a shell command is allowed, asked about or blocked per policy, and runs only when the gate allowed it", async (t) => {
  const script = {
    rules: CASES.map((c) => ({
      match: `run case ${c.name} now`,
      replies: [
        // grok 1.0.41 refuses run_terminal_command without `description`.
        {
          toolCalls: [
            {
              name: "run_terminal_command",
              arguments: { command: `echo ran > ${marker(c.name)}`, description: `write ${marker(c.name)}` },
            },
          ],
        },
        { text: `case ${c.name} went on` },
      ],
    })),
  };
  await withLiveRig(t, script, async (rig) => {
    let gate: PermissionGate = createPermissionGate({ policy: parsePolicyFlags({}) });
    const asked: ApprovalRequest[] = [];
    const { session, decisions } = await createGatedSession(rig, () => gate);
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      for (const c of CASES) {
        await t.test(`${c.name}: ${c.ran ? "runs" : "does not run"}, approver asked ${c.asked} time(s)`, async () => {
          const approver = c.approver;
          gate = createPermissionGate({
            policy: parsePolicyFlags(c.flags),
            ...(approver === undefined
              ? {}
              : {
                  approver: (question: ApprovalRequest) => {
                    asked.push(question);
                    return approver;
                  },
                }),
          });
          const askedBefore = asked.length;
          const decidedBefore = decisions.length;
          const promptId = `perm-${c.name}`;
          const result = await session.prompt(`please run case ${c.name} now`, { promptId });
          const followUps = rig.mock.requests.filter((r) => r.kind === "tool_followup" && r.reqId === promptId).length;

          assert.equal(
            existsSync(join(rig.sandbox.project, marker(c.name))),
            c.ran,
            "the marker file tells whether the command ran",
          );
          assert.equal(asked.length - askedBefore, c.asked);
          for (const question of asked.slice(askedBefore)) assert.equal(question.category, "execute");
          const mine = decisions.slice(decidedBefore);
          assert.equal(mine.length, 1, "grok asked exactly once");
          const audit = mine[0]!.audit;
          assert.equal(audit.category, "execute");
          assert.equal(audit.decision, c.ran ? "allow" : "deny");
          assert.equal(audit.via, c.via);
          assert.equal(audit.reason, c.reason);
          assert.equal(
            audit.optionId,
            c.ran ? "allow-once" : "reject-once",
            "options are chosen by kind; the once-variants",
          );
          const recorded = session.audit[session.audit.length - 1];
          assert.deepEqual(recorded, {
            event: "permission",
            toolCallId: audit.toolCallId,
            category: "execute",
            decision: audit.decision,
          });
          if (c.ran) {
            assert.equal(result.stopReason, "end_turn");
            assert.equal(result.text, `case ${c.name} went on`);
            assert.equal(followUps, 1, "the command's output went back to the model");
          } else {
            // grok 1.0.41 ends the turn as cancelled after reject-once ("tell Grok what to do differently"):
            // the model is never called back. A denial nobody could be asked about says so and names the knob
            // (issue 15 §1); a policy block or an approver's no leaves the stop-reason diagnostic.
            assert.equal(result.stopReason, "cancelled");
            assert.equal(result.text, "");
            if (c.reason === "no-approver") {
              assert.equal(result.diagnostic?.code, "PERMISSION_NO_APPROVER");
              assert.match(result.diagnostic.message, /nobody could be asked/);
              assert.match(result.diagnostic.message, /--allow execute/);
            } else {
              assert.equal(result.diagnostic?.code, "ACP_STOP_REASON");
            }
            assert.equal(followUps, 0);
          }
        });
      }
      const after = await session.prompt("say pong");
      assert.equal(after.text, "pong from mock", "refused commands leave the session usable");
    } finally {
      await session.dispose();
    }
  });
});
