/*
 * Fleet on the real grok 1.0.41 (offline against the mock model): `seat worker` processes on a real
 * redis-server, each a simulated host with the sandbox's HOME/GROK_HOME. "Reached the model once" is counted
 * at the mock by the promptId grok sends (`x-grok-req-id` = `fleet-<job id>`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectFleet } from "../../../src/fleet/index.js";
import { startLiveFleet, until, withLiveFleet } from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";

const useTool = (qualifiedName: string, toolInput: unknown) => ({
  name: "use_tool",
  arguments: { tool_name: qualifiedName, tool_input: toolInput },
});

const TOOLS_MODULE = `export const tools = [{
  name: "word_count",
  description: "Counts the words of a text.",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: ({ text }) => \`\${text.trim().split(/\\s+/).length} words (counted on \${process.env.HOME.split("/").pop()})\`,
}];
`;

test("seat submit --wait streams a real grok turn from a worker process whose host tool answers, with the policy the job carried", async (t) => {
  await withLiveFleet(
    t,
    {
      rules: [
        {
          match: "count these",
          replies: [
            { toolCalls: [useTool("host-tools__word_count", { text: "one two three" })] },
            { text: "The host tool answered." },
          ],
        },
      ],
    },
    async ({ live, fleet, hostEnv }) => {
      const modulePath = join(fleet.root, "tools.mjs");
      writeFileSync(modulePath, TOOLS_MODULE);
      await fleet.startWorker("host-a", { env: hostEnv, args: ["--tools", modulePath] });
      await fleet.startWorker("host-b", { env: hostEnv, args: ["--tools", modulePath] });
      const result = await runSeat(
        [
          "submit",
          "--redis",
          fleet.redis.url,
          "--wait",
          "--allow",
          "mcp",
          "--cwd",
          live.sandbox.project,
          "count these words",
        ],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } },
      );
      assert.equal(result.code, 0, result.stderr + fleet.workers.map((w) => w.stderr()).join(""));
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; [k: string]: any });
      const id = lines[0]!.id as string;
      const end = lines.find((l) => l.type === "tool_end");
      assert.equal(end?.status, "completed");
      assert.match(
        JSON.stringify(end?.rawOutput),
        /3 words \(counted on home\)/,
        "the worker's tool ran with the worker's HOME",
      );
      assert.equal(lines.find((l) => l.type === "permission")?.decision, "allow");
      assert.equal(lines.find((l) => l.type === "done")?.text, "The host tool answered.");
      assert.deepEqual(
        lines.filter((l) => l.type === "job").map((l) => l.status),
        ["waiting", "active", "dispatched", "completed"],
      );
      const reached = live.mock.requests.filter((r) => r.kind === "main" && r.reqId === `fleet-${id}`);
      assert.equal(reached.length, 1, "one main request for the prompt (the tool follow-up is counted apart)");
    },
  );
});

test("kill -9 of a real-grok worker right after dispatch leaves the job uncertain and the prompt reached the model once", async (t) => {
  const long = Array.from({ length: 120 }, (_, i) => `w${i}`).join(" ");
  const rigs = await startLiveFleet(t, { rules: [{ match: "slowly", replies: [{ text: long, chunkDelayMs: 200 }] }] });
  if (!rigs) return;
  const { live, fleet, hostEnv } = rigs;
  const client = await connectFleet(fleet.redis.url);
  try {
    const a = await fleet.startWorker("host-a", { env: hostEnv });
    const handle = await client.enqueue({ prompt: "answer slowly", cwd: live.sandbox.project });
    const promptId = `fleet-${handle.id}`;
    await until(
      () => (live.mock.requests.some((r) => r.kind === "main" && r.reqId === promptId) ? true : undefined),
      60_000,
      "the prompt at the model",
    );
    await fleet.startWorker("host-b", { env: hostEnv });
    a.child.kill("SIGKILL");
    const killedAt = Date.now();
    const result = await handle.result();
    assert.equal(result.status, "uncertain");
    assert.ok(Date.now() - killedAt < 30_000);
    await new Promise((r) => setTimeout(r, Math.max(0, 16_000 - (Date.now() - killedAt))));
    assert.equal(
      live.mock.requests.filter((r) => r.kind === "main" && r.reqId === promptId).length,
      1,
      "never re-sent",
    );
  } finally {
    await client.close();
    await rigs.close();
  }
});

test("seat submit --max-tokens: the worker cancels the turn over budget after two model calls; the job ends cancelled with BUDGET_EXCEEDED and its usage", async (t) => {
  const shell = (command: string) => ({ name: "run_terminal_command", arguments: { command, description: "wait" } });
  await withLiveFleet(
    t,
    {
      rules: [
        {
          match: "spend three calls",
          replies: [
            { text: "one ", toolCalls: [shell("sleep 1")] },
            { text: "two ", toolCalls: [shell("sleep 2")] },
            { text: "three" },
          ],
        },
      ],
    },
    async ({ live, fleet, hostEnv }) => {
      await fleet.startWorker("host-a", { env: hostEnv });
      const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
      const result = await runSeat(
        [
          "submit",
          "--redis",
          fleet.redis.url,
          "--wait",
          "--allow",
          "execute",
          "--max-tokens",
          "20",
          "--cwd",
          live.sandbox.project,
          "please spend three calls",
        ],
        { env },
      );
      assert.equal(result.code, 77, result.stderr + fleet.workers.map((w) => w.stderr()).join(""));
      const lines = result.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; [k: string]: any });
      const id = lines[0]!.id as string;
      assert.equal(lines.find((l) => l.type === "done")?.text, "one two ");
      const last = lines.filter((l) => l.type === "job").at(-1);
      assert.equal(last?.status, "cancelled");
      assert.equal(last?.code, "BUDGET_EXCEEDED");
      assert.equal(last?.usage?.modelCalls, 2, "the job's stream carries the usage grok reported");
      const client = await connectFleet(fleet.redis.url);
      try {
        const record = await client.job(id).state();
        assert.equal(record.status, "cancelled");
        assert.equal(record.code, "BUDGET_EXCEEDED");
        assert.equal(record.usage?.modelCalls, 2, "the job record carries its usage");
      } finally {
        await client.close();
      }
      const shown = await runSeat(["jobs", "show", id, "--redis", fleet.redis.url], { env });
      assert.match(shown.stdout, /BUDGET_EXCEEDED: The turn used 26 tokens over 2 model call/);
      assert.match(shown.stdout, /usage: 1 turn: 2 model calls, \d+ in, \d+ out/);
      const shownJson = JSON.parse(
        (await runSeat(["jobs", "show", id, "--redis", fleet.redis.url, "--json"], { env })).stdout.trim(),
      ) as { usage?: { inputTokens?: number }; ledger: { turns: number; modelCalls: number; inputTokens: number } };
      assert.deepEqual(
        [shownJson.ledger.turns, shownJson.ledger.modelCalls, shownJson.ledger.inputTokens],
        [1, 2, shownJson.usage?.inputTokens],
        "jobs show totals the job as the ledger does",
      );
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.equal(
        live.mock.requests.filter((r) => r.reqId === `fleet-${id}` && (r.kind === "main" || r.kind === "tool_followup"))
          .length,
        2,
        "the mock saw two model calls",
      );
      // A budget an agent cannot be held to is refused before anything is queued.
      const refused = await runSeat(
        ["submit", "--redis", fleet.redis.url, "--agent", "codex", "--max-tokens", "100", "say pong"],
        { env },
      );
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, /BUDGET_UNMETERED/);
    },
  );
});

test("fleet budget race: 20 jobs, a budget for exactly 5, 3 real-grok workers → exactly 5 dispatched, 15 refused over budget, none uncertain", async (t) => {
  await withLiveFleet(t, undefined, async ({ live, fleet, hostEnv }) => {
    // "pong from mock" is 14 tokens; each job reserves its own --max-tokens 14, the queue has 70 a day.
    for (const name of ["host-a", "host-b", "host-c"])
      await fleet.startWorker(name, { env: hostEnv, args: ["--budget", "70tokens/day", "--concurrency", "2"] });
    const client = await connectFleet(fleet.redis.url);
    try {
      const handles = [];
      for (let i = 0; i < 20; i += 1)
        handles.push(
          await client.enqueue({ prompt: `say pong ${i}`, cwd: live.sandbox.project, budget: { maxTokens: 14 } }),
        );
      const results = await Promise.all(handles.map((h) => h.result()));
      const statuses = results.map((r) => `${r.status}:${r.code ?? ""}`);
      assert.equal(statuses.filter((s) => s === "completed:").length, 5, statuses.join(" "));
      assert.equal(statuses.filter((s) => s === "failed:BUDGET_EXCEEDED").length, 15, statuses.join(" "));
      assert.equal(statuses.filter((s) => s.startsWith("uncertain")).length, 0);
      const reached = new Set(
        live.mock.requests.filter((r) => r.kind === "main" && r.reqId?.startsWith("fleet-")).map((r) => r.reqId),
      );
      assert.equal(reached.size, 5, "exactly five prompts reached the model");
      const refused = await client.job(results.find((r) => r.code === "BUDGET_EXCEEDED")!.id).state();
      assert.match(
        refused.message ?? "",
        /has spent \d+ of its 70 tokens this day; this job's 14 would go over\. Not dispatched\./,
      );
      assert.equal(refused.dispatchedAt, undefined, "a refused job was never marked dispatched");
    } finally {
      await client.close();
    }
  });
});
