/*
 * Live spend, every call: the real grok 1.0.41 makes model calls it reports nowhere (a title on a session's first
 * prompt, a turn summary after every turn that ends normally, a title refresh later). The seat's metering point on
 * grok's model route meters them; the ledger must come within 2 % of what the mock served (the mock reports prompt
 * tokens = request body / 4 here, so a call that re-sends the conversation costs what it sent). A missing real
 * binary fails these tests in required mode.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../../src/runtime/index.js";
import type { TurnResult } from "../../../src/acp/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { ledgerEntriesOf, queryUsage, type LedgerEntry } from "../../../src/usage/index.js";
import {
  createSandbox,
  sandboxConfigToml,
  startMockModel,
  type MockModelServer,
  type MockScript,
  type Sandbox,
} from "../../../src/testing.js";
import { liveBinary } from "../../support/live-rig.js";
import { needGrok } from "../../support/requirements.js";
import { runSeat } from "../../support/cli.js";

const CANARY = "xai-canary-spend-5c1d0e";
const TOOL_TURN: MockScript = {
  rules: [
    {
      match: "list the files",
      replies: [
        { toolCalls: [{ name: "run_terminal_command", arguments: { command: "ls", description: "list" } }] },
        { text: "listed them" },
      ],
    },
  ],
};

interface Rig {
  binary: string;
  mock: MockModelServer;
  sandbox: Sandbox;
}

async function rig(t: TestContext, script: MockScript = {}): Promise<Rig | null> {
  const binary = await liveBinary();
  if (
    !needGrok(t, binary instanceof Error ? `the real grok 1.0.41: ${binary.message}` : false) ||
    binary instanceof Error
  )
    return null;
  const mock = await startMockModel({ script, promptTokensFromBody: true });
  const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl });
  t.after(async () => {
    await mock.close();
    sandbox.cleanup();
  });
  return { binary, mock, sandbox };
}

/** Tokens (input + output) the mock reported for every call it answered. */
function served(mock: MockModelServer): number {
  return mock.requests.reduce((sum, r) => sum + (r.served ? r.served.promptTokens + r.served.completionTokens : 0), 0);
}

function ledgerTokens(rows: readonly LedgerEntry[]): number {
  return rows.reduce((sum, r) => sum + (r.inputTokens ?? 0) + (r.outputTokens ?? 0), 0);
}

function within2Percent(ledger: number, model: number, what: string): void {
  const off = Math.abs(ledger - model) / model;
  assert.ok(
    off <= 0.02,
    `${what}: the ledger has ${ledger} tokens, the model served ${model} (${(off * 100).toFixed(2)} % apart)`,
  );
}

async function turns(
  r: Rig,
  prompts: string[],
  options: { meterModelRoute?: boolean; budget?: { maxTokens: number } } = {},
): Promise<TurnResult[]> {
  const session = await createSession({
    cwd: r.sandbox.project,
    grokCliBinaryPath: r.binary,
    agentEnv: r.sandbox.env,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["execute"] }) }),
    ...(options.meterModelRoute === false ? { meterModelRoute: false } : {}),
  });
  try {
    assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
    const results: TurnResult[] = [];
    for (const prompt of prompts)
      results.push(await session.prompt(prompt, options.budget ? { budget: options.budget } : {}));
    return results;
  } finally {
    await session.dispose();
  }
}

test("one turn of seat run: the ledger holds grok's title and turn summary calls too, within 2 % of what the model served; the key is nowhere", async (t) => {
  const r = await rig(t);
  if (!r) return;
  // The model's key is the canary: it must reach the model through the metering point and nothing else.
  writeFileSync(
    join(r.sandbox.grokHome, "config.toml"),
    sandboxConfigToml(r.mock.baseUrl).replace('api_key = "mock-key"', `api_key = "${CANARY}"`),
  );
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: r.sandbox.home,
    GROK_HOME: r.sandbox.grokHome,
    GROK_BIN: r.binary,
    GROK_SEAT_HOME: join(r.sandbox.root, "seat-home"),
  };
  const run = await runSeat(["run", "--json", "--cwd", r.sandbox.project, "say pong"], { env });
  assert.equal(run.code, 0, run.stderr + run.stdout);
  const kinds = r.mock.requests.filter((q) => q.method === "POST").map((q) => q.kind);
  assert.ok(kinds.includes("summary") && kinds.includes("title"), `grok made its side calls: ${kinds.join(", ")}`);
  const journal = join(r.sandbox.root, "seat-home", "seats.db");
  const [total] = queryUsage({ journalFile: journal });
  within2Percent((total!.inputTokens ?? 0) + (total!.outputTokens ?? 0), served(r.mock), "one turn");
  assert.equal(total!.modelCalls, kinds.length, "every call the model answered is a call in the ledger");
  assert.equal(total!.turns, 1);
  assert.equal(total!.estimatedCalls, 0, "measured, not estimated");
  assert.equal(
    r.mock.requests.find((q) => q.kind === "main")?.headers.authorization,
    undefined,
    "the mock's log drops the header",
  );
  for (const [where, text] of [
    ["stdout", run.stdout],
    ["stderr", run.stderr],
    ["journal", readFileSync(journal).toString("latin1")],
  ] as const) {
    assert.ok(!text.includes(CANARY), `the key is not in ${where}`);
  }
});

test("three turns of one session (title refresh included) and a tool turn: each ledger within 2 % of what the model served, main calls counted once", async (t) => {
  const r = await rig(t, TOOL_TURN);
  if (!r) return;
  const results = await turns(r, ["say pong", "say pong again", "say pong a third time"]);
  const rows = results.flatMap((res) => ledgerEntriesOf(res, { source: "session", agent: "grok" }));
  within2Percent(ledgerTokens(rows), served(r.mock), "three turns");
  assert.ok(
    rows.some((row) => row.metered === "proxy"),
    "side calls are marked as read at the metering point",
  );
  const mainCalls = r.mock.requests.filter((q) => q.kind === "main").length;
  assert.equal(
    rows.filter((row) => row.metered === "agent").reduce((sum, row) => sum + (row.modelCalls ?? 0), 0),
    mainCalls,
    "grok's own report counts its main calls",
  );
  assert.ok(
    !rows.some(
      (row) => row.metered === "proxy" && results.some((res) => res.sideCalls?.some((s) => s.kinds.includes("main"))),
    ),
    "no main call is counted twice",
  );

  const before = served(r.mock);
  const beforeCalls = r.mock.requests.filter((q) => q.served).length;
  const [tool] = await turns(r, ["list the files please"]);
  assert.equal(tool!.stopReason, "end_turn", JSON.stringify(tool));
  assert.ok(r.mock.requests.some((q) => q.kind === "tool_followup"));
  const toolRows = ledgerEntriesOf(tool!, { source: "run", agent: "grok" });
  within2Percent(ledgerTokens(toolRows), served(r.mock) - before, "a tool turn");
  assert.equal(
    toolRows.reduce((sum, row) => sum + (row.modelCalls ?? 0), 0),
    r.mock.requests.filter((q) => q.served).length - beforeCalls,
  );
});

test("a turn budget that the main call fits but grok's turn summary would pass: the summary is refused before it reaches the model", async (t) => {
  const r = await rig(t);
  if (!r) return;
  // grok 1.0.41's first main call re-sends about 56 kB (~14,100 tokens here); its summary re-sends the same again.
  const [result] = await turns(r, ["say pong"], { budget: { maxTokens: 20_000 } });
  assert.equal(result!.stopReason, "end_turn");
  assert.equal(result!.diagnostic, undefined, JSON.stringify(result!.diagnostic));
  assert.equal(result!.text, "pong from mock");
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.deepEqual(
    r.mock.requests.filter((q) => q.kind === "summary"),
    [],
    "the summary never reached the model",
  );
  const rows = ledgerEntriesOf(result!, { source: "run", agent: "grok" });
  assert.equal(ledgerTokens(rows), served(r.mock), "the ledger is exactly what was served");
  assert.ok(ledgerTokens(rows) <= 20_000, "and within the budget");
});

test("without the metering point, grok's turn summary is estimated and marked so", async (t) => {
  const r = await rig(t);
  if (!r) return;
  const [result] = await turns(r, ["say pong"], { meterModelRoute: false });
  assert.equal(result!.stopReason, "end_turn");
  const estimated = result!.sideCalls?.filter((s) => s.metered === "estimated") ?? [];
  assert.deepEqual(
    estimated.map((s) => [s.kinds, s.modelCalls]),
    [[["turn_summary"], 1]],
  );
  const rows = ledgerEntriesOf(result!, { source: "run", agent: "grok" });
  const ledger = ledgerTokens(rows);
  const model = served(r.mock);
  t.diagnostic(
    `estimate: ledger ${ledger} tokens against ${model} served (${((ledger / model - 1) * 100).toFixed(2)} %)`,
  );
  assert.ok(
    Math.abs(ledger - model) / model <= 0.05,
    `the estimate is near what was served: ${ledger} against ${model}`,
  );
});

test("a command grok runs does not inherit the metering point's HTTP_PROXY (grok's shell_environment_policy excludes it)", async (t) => {
  const r = await rig(t, {
    rules: [
      {
        match: "run echo",
        replies: [
          {
            toolCalls: [
              {
                name: "run_terminal_command",
                arguments: {
                  command: 'echo "P=[$HTTP_PROXY][$http_proxy]" > proxy.txt',
                  description: "write a marker",
                },
              },
            ],
          },
          { text: "ok" },
        ],
      },
    ],
  });
  if (!r) return;
  const [result] = await turns(r, ["run echo please"]);
  assert.equal(result!.stopReason, "end_turn", JSON.stringify(result));
  assert.ok(
    result!.sideCalls?.some((s) => s.metered === "proxy"),
    "the metering point was on the route",
  );
  assert.equal(readFileSync(join(r.sandbox.project, "proxy.txt"), "utf8").trim(), "P=[][]");
});

test("a turn its side calls take over its budget ends BUDGET_EXCEEDED with its text complete, said as a diagnostic after done", async (t) => {
  const r = await rig(t);
  if (!r) return;
  // Without the metering point nothing can refuse grok's summary: its estimate still counts against the budget.
  const events: string[] = [];
  const session = await createSession({
    cwd: r.sandbox.project,
    grokCliBinaryPath: r.binary,
    agentEnv: r.sandbox.env,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    meterModelRoute: false,
    callbacks: {
      onEvent: (e) => void events.push(e.type === "diagnostic" ? `diagnostic:${e.diagnostic.code}` : e.type),
    },
  });
  try {
    const result = await session.prompt("say pong", { budget: { maxTokens: 20_000 } });
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.text, "pong from mock");
    assert.equal(result.diagnostic?.code, "BUDGET_EXCEEDED", JSON.stringify(result));
    assert.match(result.diagnostic!.message, /more than its budget of 20000; its text is complete/);
    assert.deepEqual(
      events.filter((e) => e === "done" || e.startsWith("diagnostic")),
      ["done", "diagnostic:BUDGET_EXCEEDED"],
    );
  } finally {
    await session.dispose();
  }
});
