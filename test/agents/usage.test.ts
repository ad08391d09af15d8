/*
 * What each real agent reports about usage (issue 17), offline against the mock, and that the ledger keeps it:
 * two turns of a named session (openSession, which writes the ledger) and the ledger's totals compared with what
 * the mock answered (input 11 per model call, output = words + tool calls). Codex and Claude put each turn's
 * tokens in the prompt response's `_meta.quota.token_count` (and ACP `usage`); their background calls (titles,
 * Claude Code's call after a turn) are not the turn's and are left out of both sides. OpenCode answers in ACP's
 * `usage`, Gemini in `_meta.quota.token_count` (snake_case).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { openSession } from "../../src/sessions/index.js";
import { journalPath } from "../../src/home/index.js";
import { queryUsage } from "../../src/usage/index.js";
import { startAgentRig, AGENTS_UNDER_TEST as AGENTS } from "./rig.js";
import { agentTest } from "./results.js";

const REPLIES = [{ text: "alpha beta gamma" }, { text: "one two three four five" }];

for (const agent of AGENTS) {
  describe(`${agent}: usage in the ledger (real agent, offline)`, { concurrency: false }, () => {
    agentTest(
      agent,
      ["usage"],
      `${agent}: each turn's reported tokens reach the ledger and its totals equal the mock's counts`,
      async () => {
        const rig = await startAgentRig(agent, {
          rules: [
            { match: "first question", replies: [REPLIES[0]!] },
            { match: "second question", replies: [REPLIES[1]!] },
          ],
        });
        const home = mkdtempSync(join(tmpdir(), "gs-agent-usage-"));
        try {
          const opened = await openSession({ ...rig.options, name: "spend", home });
          const session = opened.session;
          assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
          const results = [];
          try {
            results.push(await session.prompt("the first question"));
            results.push(await session.prompt("the second question"));
          } finally {
            await session.dispose();
          }
          for (const r of results) assert.equal(r.stopReason, "end_turn", JSON.stringify(r));
          // All four agents report each turn's tokens (docs/spend.md); none may silently stop.
          for (const r of results)
            assert.ok(
              r.usage,
              `${agent} reported no usage for a turn: ${JSON.stringify(r.responseMeta ?? null).slice(0, 300)}`,
            );
          // The mock's own counts for the turns' model calls: the requests whose last message is a turn's question.
          // Title calls, and Claude Code's background call after a turn (the whole conversation, another question
          // last), run beside the turns; the agents do not count them in a turn, and neither does this.
          const calls = rig.mock.requests.filter(
            (q) => q.kind === "main" && /the (first|second) question/.test(q.query ?? ""),
          );
          assert.equal(
            calls.length,
            2,
            `one model call per turn: ${JSON.stringify(rig.mock.requests.map((q) => [q.kind, q.query?.slice(0, 80)]))}`,
          );
          const [totals] = queryUsage({ journalFile: journalPath(home), by: "session" });
          assert.deepEqual(
            {
              turns: totals?.turns,
              inputTokens: totals?.inputTokens,
              outputTokens: totals?.outputTokens,
              modelCalls: totals?.modelCalls,
              unreportedTurns: totals?.unreportedTurns,
              costSource: totals?.costSource,
            },
            // The mock answers 11 input tokens per call; output is words + tool calls, except Gemini's dialect (3).
            {
              turns: 2,
              inputTokens: 11 * calls.length,
              outputTokens: calls.reduce(
                (n, q) => n + (q.dialect === "gemini" ? 3 : /first/.test(q.query ?? "") ? 3 : 5),
                0,
              ),
              modelCalls: null,
              unreportedTurns: 0,
              costSource: "unknown",
            },
            `the ledger's totals equal the mock's counts (${JSON.stringify(results.map((r) => r.usage))})`,
          );
          // Codex and Claude name the model in `_meta.quota.model_usage`: the ledger rows carry it.
          const quota = (results[0]!.responseMeta as { quota?: { model_usage?: Array<{ model: string }> } } | undefined)
            ?.quota;
          if (quota?.model_usage?.length === 1)
            assert.deepEqual(
              queryUsage({ journalFile: journalPath(home), by: "model" }).map((g) => g.key),
              [quota.model_usage[0]!.model],
            );
        } finally {
          rmSync(home, { recursive: true, force: true });
          await rig.cleanup();
        }
      },
    );
  });
}
