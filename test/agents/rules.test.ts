/*
 * Rules, skills and model on the REAL agents, offline: the session's rules text (the embedder's rules, the
 * host-tool paragraph with this agent's own tool names, and a requested skill's SKILL.md text) must reach
 * the model request, each agent its native way (Claude `_meta.systemPrompt.append`, Codex ACP `systemPrompt`,
 * OpenCode `instructions`, Gemini a GEMINI.md include directory); the `model` option must reach it too.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { createSession } from "../../src/runtime/index.js";
import { startAgentRig, AGENTS_UNDER_TEST as AGENTS } from "./rig.js";
import { agentTest } from "./results.js";

/** The model id each agent is asked for (OpenCode names models "<provider>/<model>"). */
const MODEL: Record<string, string> = {
  codex: "mock-model-2",
  claude: "mock-model-2",
  opencode: "mock/mock-model-2",
  gemini: "mock-model-2",
};

for (const agent of AGENTS) {
  describe(`${agent}: rules, skills and model (real agent, offline)`, () => {
    agentTest(
      agent,
      ["rules-text", "model-flag"],
      `${agent}: the rules (host-tool names, a requested skill's text) and the requested model reach the model request`,
      async () => {
        const rig = await startAgentRig(agent, {
          rules: [{ match: "hello rules", replies: [{ text: "rules seen" }] }],
        });
        try {
          const skill = join(rig.home, "skill-src", "marker-skill");
          mkdirSync(skill, { recursive: true });
          writeFileSync(
            join(skill, "SKILL.md"),
            "---\nname: marker-skill\ndescription: A skill the test looks for.\n---\nSKILL-MARKER-93c1: say the marker when asked.\n",
          );
          const session = await createSession({
            ...rig.options,
            model: MODEL[agent] ?? "mock-model-2",
            rules: "RULES-MARKER-4d2e: answer briefly.",
            additionalSkillPaths: [skill],
            tools: [
              {
                name: "shout",
                description: "Upper-cases text.",
                inputSchema: { type: "object", properties: { text: { type: "string" } } },
                execute: () => "X",
              },
            ],
          });
          try {
            assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
            const turn = await session.prompt("hello rules");
            assert.equal(turn.stopReason, "end_turn", JSON.stringify(turn));
            const main = rig.mock.requests.filter((r) => JSON.stringify(r.body ?? "").includes("hello rules"));
            assert.ok(main.length > 0, "the turn reached the model");
            const bodies = main.map((r) => JSON.stringify(r.body));
            const toolName = rig.profile.modelToolName("host-tools", "shout");
            assert.ok(
              bodies.some((b) => b.includes("RULES-MARKER-4d2e")),
              "the embedder's rules reach the model",
            );
            assert.ok(
              bodies.some((b) => b.includes("SKILL-MARKER-93c1")),
              "the requested skill's text reaches the model",
            );
            assert.ok(
              bodies.some(
                (b) =>
                  b.includes(`${toolName} `) ||
                  b.includes(`${toolName},`) ||
                  b.includes(`${toolName}.`) ||
                  b.includes(`${toolName}\\n`),
              ),
              `the rules name the host tool as this agent sees it (${toolName})`,
            );
            const modelId = (MODEL[agent] ?? "mock-model-2").split("/").pop()!;
            assert.ok(
              main.some(
                (r) => r.url.includes(modelId) || (r.body as { model?: unknown } | undefined)?.model === modelId,
              ),
              `the model request names ${modelId}: ${main.map((r) => `${r.url} ${String((r.body as { model?: unknown } | undefined)?.model)}`).join("; ")}`,
            );
          } finally {
            await session.dispose();
          }
        } finally {
          await rig.cleanup();
        }
      },
    );
  });
}
