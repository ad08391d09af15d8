/*
 * The usage ledger on a real sqlite journal: rows per turn and model, unknown kept unknown, totals grouped and
 * filtered, costs labelled with their source, and the price file's bad values named.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ledgerEntriesOf, queryUsage, recordUsage } from "../../../src/usage/index.js";
import { loadPrices } from "../../../src/metering/index.js";
import Database from "better-sqlite3";
import { openJournal } from "../../../src/journal/index.js";
import { openStore } from "../../../src/sessions/index.js";
import { scopeFor } from "../../../src/names/index.js";
import { isSeatError } from "../../../src/errors.js";
import { runSeat } from "../../support/cli.js";
import { fakeGrokBinary } from "../../support/fake-agent.js";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-usage-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** grok's prompt response `_meta` for a turn of two model calls on one model. */
const GROK_META = {
  sessionId: "s",
  promptId: "p1",
  modelId: "mock-model",
  inputTokens: 11,
  outputTokens: 3,
  usage: {
    inputTokens: 22,
    outputTokens: 5,
    totalTokens: 27,
    cachedReadTokens: 0,
    reasoningTokens: 0,
    modelCalls: 2,
    modelUsage: {
      "mock-model": {
        inputTokens: 22,
        outputTokens: 5,
        totalTokens: 27,
        cachedReadTokens: 0,
        reasoningTokens: 0,
        modelCalls: 2,
      },
    },
  },
};

test("a turn becomes one ledger row per model; a turn that reported nothing is a row of unknowns, never zeros", () => {
  const at = new Date("2026-12-01T10:00:00Z");
  const [row] = ledgerEntriesOf(
    {
      promptId: "p1",
      stopReason: "end_turn",
      usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2 },
      responseMeta: GROK_META,
    },
    { source: "run", agent: "grok", now: at },
  );
  assert.deepEqual(row, {
    recordedAt: at.toISOString(),
    source: "run",
    agent: "grok",
    session: null,
    sessionRow: null,
    jobId: null,
    promptId: "p1",
    stopReason: "end_turn",
    model: "mock-model",
    inputTokens: 22,
    outputTokens: 5,
    cachedTokens: 0,
    reasoningTokens: 0,
    modelCalls: 2,
    costUsdTicks: null,
    metered: "agent",
  });
  const [silent] = ledgerEntriesOf(
    { promptId: "p2", stopReason: "end_turn" },
    { source: "session", agent: "codex", session: "alpha", model: "gpt-x", now: at },
  );
  assert.equal(silent!.model, "gpt-x");
  for (const key of [
    "inputTokens",
    "outputTokens",
    "cachedTokens",
    "reasoningTokens",
    "modelCalls",
    "costUsdTicks",
  ] as const)
    assert.equal(silent![key], null, key);
  const two = ledgerEntriesOf(
    {
      promptId: "p3",
      usage: { costUsdTicks: 5e9 },
      responseMeta: {
        usage: {
          costUsdTicks: 5e9,
          modelUsage: {
            a: { inputTokens: 1, outputTokens: 1, costUsdTicks: 2e9 },
            b: { inputTokens: 2, outputTokens: 2 },
          },
        },
      },
    },
    { source: "job", agent: "grok", jobId: "j1", now: at },
  );
  assert.deepEqual(
    two.map((r) => [r.model, r.costUsdTicks, r.jobId]),
    [
      ["a", 2e9, "j1"],
      ["b", null, "j1"],
    ],
    "a cost split over models is only known where grok said it",
  );
});

test("a turn's side calls are rows of their own, marked proxy or estimated: they add calls and tokens to the totals, not turns", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "seats.db");
  openJournal(file).close();
  const at = new Date("2026-12-02T10:00:00Z");
  const sideCalls = [
    {
      kinds: ["title"],
      model: "grok-4.6",
      inputTokens: 279,
      outputTokens: 1,
      cachedTokens: null,
      reasoningTokens: null,
      modelCalls: 1,
      metered: "proxy" as const,
    },
    {
      kinds: ["turn_summary"],
      model: "mock-model",
      inputTokens: 14460,
      outputTokens: 3,
      cachedTokens: null,
      reasoningTokens: null,
      modelCalls: 1,
      metered: "proxy" as const,
    },
  ];
  const rows = ledgerEntriesOf(
    {
      promptId: "p1",
      stopReason: "end_turn",
      usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2 },
      responseMeta: GROK_META,
      sideCalls,
    },
    { source: "run", agent: "grok", now: at },
  );
  assert.deepEqual(
    rows.map((r) => [r.promptId, r.model, r.inputTokens, r.outputTokens, r.modelCalls, r.metered]),
    [
      ["p1", "mock-model", 22, 5, 2, "agent"],
      ["p1", "grok-4.6", 279, 1, 1, "proxy"],
      ["p1", "mock-model", 14460, 3, 1, "proxy"],
    ],
  );
  const estimated = ledgerEntriesOf(
    {
      promptId: "p2",
      stopReason: "end_turn",
      usage: { inputTokens: 11, outputTokens: 3, modelCalls: 1 },
      sideCalls: [
        {
          kinds: ["turn_summary"],
          model: null,
          inputTokens: 14,
          outputTokens: 16,
          cachedTokens: null,
          reasoningTokens: null,
          modelCalls: 1,
          metered: "estimated",
        },
      ],
    },
    { source: "run", agent: "grok", now: at },
  );
  recordUsage(file, [...rows, ...estimated]);
  const [all] = queryUsage({ journalFile: file });
  assert.equal(all!.turns, 2, "two turns, however many side calls");
  assert.equal(all!.modelCalls, 6);
  assert.equal(all!.inputTokens, 22 + 279 + 14460 + 11 + 14);
  assert.equal(all!.estimatedCalls, 1);
});

test("seat usage totals group by agent, model, session, job and day, filter by date, and keep unknown apart from zero", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "seats.db");
  openJournal(file).close();
  const day1 = new Date("2026-11-30T12:00:00Z");
  const day2 = new Date("2026-12-01T12:00:00Z");
  recordUsage(file, [
    ...ledgerEntriesOf(
      { promptId: "r1", usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2 }, responseMeta: GROK_META },
      { source: "run", agent: "grok", now: day1 },
    ),
    ...ledgerEntriesOf(
      { promptId: "s1", usage: { inputTokens: 10, outputTokens: 1, modelCalls: 1, costUsdTicks: 2.5e8 } },
      { source: "session", agent: "grok", session: "alpha", model: "grok-4", now: day2 },
    ),
    ...ledgerEntriesOf({ promptId: "c1" }, { source: "job", agent: "codex", jobId: "job-9", now: day2 }),
  ]);
  const [all] = queryUsage({ journalFile: file });
  assert.deepEqual(all, {
    key: "all",
    turns: 3,
    modelCalls: 3,
    inputTokens: 32,
    outputTokens: 6,
    cachedTokens: 0,
    reasoningTokens: 0,
    unreportedTurns: 1,
    costUsd: 0.025,
    costSource: "reported",
    unpricedTurns: 2,
    estimatedCalls: 0,
  });
  const byAgent = queryUsage({ journalFile: file, by: "agent" });
  assert.deepEqual(
    byAgent.map((g) => [g.key, g.turns, g.inputTokens]),
    [
      ["grok", 2, 32],
      ["codex", 1, null],
    ],
    "an agent that reported nothing totals unknown, not 0",
  );
  assert.deepEqual(
    queryUsage({ journalFile: file, by: "day" }).map((g) => [g.key, g.turns]),
    [
      ["2026-11-30", 1],
      ["2026-12-01", 2],
    ],
  );
  assert.deepEqual(
    queryUsage({ journalFile: file, by: "session" }).map((g) => g.key),
    ["unknown", "alpha"],
  );
  assert.deepEqual(
    queryUsage({ journalFile: file, by: "job" }).map((g) => g.key),
    ["unknown", "job-9"],
  );
  assert.deepEqual(
    queryUsage({ journalFile: file, by: "model" }).map((g) => g.key),
    ["mock-model", "grok-4", "unknown"],
  );
  assert.deepEqual(
    queryUsage({ journalFile: file, since: "2026-12-01" }).map((g) => g.turns),
    [2],
  );
  assert.deepEqual(
    queryUsage({ journalFile: file, until: "2026-12-01" }).map((g) => g.turns),
    [1],
  );
  assert.throws(
    () => queryUsage({ journalFile: file, since: "yesterday" }),
    (e: unknown) => isSeatError(e, "USAGE_DATE_INVALID") && e.message.includes('"yesterday"'),
  );
  // Prices turn reported tokens into a cost labelled with the file; a reported cost stays "reported".
  const pricesFile = join(dir, "prices.json");
  writeFileSync(
    pricesFile,
    JSON.stringify({ schema: "grok-seat.prices.v1", models: { "mock-model": { input: 1, output: 10 } } }),
  );
  const priced = queryUsage({ journalFile: file, by: "model", prices: loadPrices(pricesFile) });
  const mock = priced.find((g) => g.key === "mock-model")!;
  assert.equal(mock.costUsd, (22 * 1 + 5 * 10) / 1e6);
  assert.equal(mock.costSource, "computed:prices.json");
  assert.equal(priced.find((g) => g.key === "grok-4")!.costSource, "reported");
  assert.equal(priced.find((g) => g.key === "unknown")!.costSource, "unknown", "no tokens, no computed cost");
});

test("a malformed price file is refused naming the value", (t) => {
  const dir = tempDir(t);
  const cases: [string, RegExp][] = [
    ["{not json", /is not valid JSON/],
    [JSON.stringify({ models: {} }), /schema undefined/],
    [JSON.stringify({ schema: "grok-seat.prices.v1", models: { m: { input: -1, output: 1 } } }), /"m" input -1/],
    [
      JSON.stringify({ schema: "grok-seat.prices.v1", models: { m: { input: 1, output: "cheap" } } }),
      /"m" output "cheap"/,
    ],
  ];
  for (const [i, [text, pattern]] of cases.entries()) {
    const file = join(dir, `p${i}.json`);
    writeFileSync(file, text);
    assert.throws(
      () => loadPrices(file),
      (e: unknown) => isSeatError(e, "PRICES_INVALID") && pattern.test(e.message),
      text,
    );
  }
  assert.throws(
    () => loadPrices(join(dir, "missing.json")),
    (e: unknown) => isSeatError(e, "PRICES_INVALID") && /ENOENT/.test(e.message),
  );
});

test("seat usage: --by and dates are checked, --csv keeps unknown empty, a bad price file exits 2", async (t) => {
  const dir = tempDir(t);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: join(dir, "home") };
  const bad = await runSeat(["usage", "--by", "week"], { env });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--by takes one of agent, model, session, job, day, got "week"/);
  const badDate = await runSeat(["usage", "--since", "soon"], { env });
  assert.equal(badDate.code, 2);
  assert.match(badDate.stderr, /"soon"/);
  writeFileSync(join(dir, "bad.json"), "[]");
  const badPrices = await runSeat(["usage", "--prices", join(dir, "bad.json")], { env });
  assert.equal(badPrices.code, 2);
  assert.match(badPrices.stderr, /PRICES_INVALID/);
  const empty = await runSeat(["usage"], { env });
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /no usage recorded/);
  recordUsage(join(dir, "home", "seats.db"), ledgerEntriesOf({ promptId: "c1" }, { source: "run", agent: "codex" }));
  const csv = await runSeat(["usage", "--csv", "--by", "agent"], { env });
  assert.equal(csv.code, 0, csv.stderr);
  assert.deepEqual(csv.stdout.trim().split("\n"), [
    "key,turns,modelCalls,inputTokens,outputTokens,cachedTokens,reasoningTokens,unreportedTurns,costUsd,costSource,unpricedTurns",
    "codex,1,,,,,,1,,unknown,1",
  ]);
});

test("the config file's prices key prices seat usage (a path relative to the file); --prices wins; a malformed one exits 2 naming the file", async (t) => {
  const dir = tempDir(t);
  const xdg = join(dir, "xdg");
  mkdirSync(join(xdg, "grok-seat"), { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    XDG_CONFIG_HOME: xdg,
    GROK_SEAT_HOME: join(dir, "home"),
  };
  const prices = (input: number) =>
    JSON.stringify({ schema: "grok-seat.prices.v1", models: { "mock-model": { input, output: 10 } } });
  writeFileSync(join(xdg, "grok-seat", "configured.json"), prices(1));
  writeFileSync(join(dir, "flagged.json"), prices(2));
  writeFileSync(join(xdg, "grok-seat", "config.json"), JSON.stringify({ prices: "configured.json" }));
  mkdirSync(join(dir, "home"), { recursive: true });
  recordUsage(
    join(dir, "home", "seats.db"),
    ledgerEntriesOf(
      {
        promptId: "p1",
        stopReason: "end_turn",
        usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2 },
        responseMeta: GROK_META,
      },
      { source: "run", agent: "grok" },
    ),
  );
  const usage = async (args: string[]) => {
    const r = await runSeat(["usage", "--json", ...args], { env, cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim()) as { costUsd: number; costSource: string };
  };
  assert.deepEqual(await usage([]), {
    ...(await usage([])),
    costUsd: (22 + 50) / 1e6,
    costSource: "computed:configured.json",
  });
  assert.deepEqual(
    await usage(["--prices", join(dir, "flagged.json")]),
    { ...(await usage([])), costUsd: (44 + 50) / 1e6, costSource: "computed:flagged.json" },
    "the flag wins over the config",
  );
  const shown = await runSeat(["config", "--json"], { env, cwd: dir });
  const entry = shown.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { key: string; value: string; source: string })
    .find((e) => e.key === "prices");
  assert.deepEqual([entry?.value, entry?.source], [join(xdg, "grok-seat", "configured.json"), "user"]);
  writeFileSync(
    join(xdg, "grok-seat", "configured.json"),
    JSON.stringify({ schema: "grok-seat.prices.v1", models: { "mock-model": { input: "cheap", output: 1 } } }),
  );
  for (const verb of [["usage"], ["run", "--grok", join(dir, "no-grok"), "hi"]]) {
    const bad = await runSeat([...verb, "--json"], { env, cwd: dir });
    assert.equal(bad.code, 2, bad.stdout + bad.stderr);
    const error = JSON.parse(bad.stdout.trim().split("\n").pop()!) as { code: string; message: string };
    assert.equal(error.code, "PRICES_INVALID");
    assert.ok(
      error.message.includes(join(xdg, "grok-seat", "configured.json")) && error.message.includes('"cheap"'),
      error.message,
    );
  }
});

test("seat sessions show totals the session's own ledger rows (per model, cost with its source, unknown kept unknown), not the turns' older sums", async (t) => {
  const dir = tempDir(t);
  const home = join(dir, "home");
  const cwd = join(dir, "project");
  mkdirSync(cwd, { recursive: true });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: home };
  const store = openStore(home);
  const work = store.ensure({ name: "work", scope: scopeFor(cwd, false), agent: "grok", cwd, model: null });
  const other = store.ensure({ name: "other", scope: scopeFor(cwd, false), agent: "grok", cwd, model: null });
  // The turn record keeps only the whole turn's usage; the ledger has it per model, with the reported cost.
  store.startTurn(work.row, "p1", "one");
  store.finishTurn("p1", {
    state: "completed",
    stopReason: "end_turn",
    text: "a",
    usage: { inputTokens: 22, outputTokens: 5 },
  });
  store.close();
  const meta = {
    usage: {
      modelUsage: {
        "model-a": { inputTokens: 20, outputTokens: 4, modelCalls: 2, costUsdTicks: 30_000 },
        "model-b": { inputTokens: 2, outputTokens: 1, modelCalls: 1, costUsdTicks: 10_000 },
      },
    },
  };
  const db = join(home, "seats.db");
  recordUsage(
    db,
    ledgerEntriesOf(
      { promptId: "p1", stopReason: "end_turn", responseMeta: meta },
      { source: "session", agent: "grok", session: "work", sessionRow: work.row },
    ),
  );
  recordUsage(
    db,
    ledgerEntriesOf({ promptId: "p2" }, { source: "session", agent: "grok", session: "work", sessionRow: work.row }),
  );
  recordUsage(
    db,
    ledgerEntriesOf(
      { promptId: "p3", usage: { inputTokens: 1000, outputTokens: 1000 } },
      { source: "session", agent: "grok", session: "other", sessionRow: other.row },
    ),
  );
  const shown = await runSeat(["sessions", "show", "work", "--json"], { env, cwd });
  assert.equal(shown.code, 0, shown.stderr);
  const session = JSON.parse(shown.stdout.trim()) as { ledger: Record<string, unknown> };
  assert.deepEqual(session.ledger, {
    key: "all",
    turns: 3,
    modelCalls: 3,
    inputTokens: 22,
    outputTokens: 5,
    cachedTokens: null,
    reasoningTokens: null,
    unreportedTurns: 1,
    costUsd: 4e-6,
    costSource: "reported",
    unpricedTurns: 1,
    estimatedCalls: 0,
  });
  const text = await runSeat(["sessions", "show", "work"], { env, cwd });
  assert.match(
    text.stdout,
    /usage: 3 turns: 3 model calls, 22 in, 5 out, \? cached, \? reasoning \(1 reported no tokens\); cost \$0\.000004 \(reported; 1 turn\(s\) unpriced, so at least\)/,
  );
  const none = await runSeat(["sessions", "show", "other", "--json", "--prices", join(dir, "missing.json")], {
    env,
    cwd,
  });
  assert.equal(none.code, 2, "a price file that cannot be read is a usage error");
});

test("migrations grok-seat.usage.v2 and v3 widen a v1 ledger to visible-seat rows (source seat) and the metered column, keeping every v1 row and its id", async (t) => {
  const dir = tempDir(t);
  const file = join(dir, "seats.db");
  openJournal(file).close();
  // Make it a journal whose ledger is still v1: the old CHECK, one row, and no v2 migration recorded.
  const raw = new Database(file);
  raw.exec(`DROP TABLE usage_ledger; DELETE FROM meta WHERE key IN ('migration:grok-seat.usage.v2', 'migration:grok-seat.usage.v3');
    CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, recorded_at TEXT NOT NULL, source TEXT NOT NULL CHECK (source IN ('run', 'session', 'job')), agent TEXT NOT NULL, session_name TEXT, session_row INTEGER, job_id TEXT, prompt_id TEXT NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, cached_tokens INTEGER, reasoning_tokens INTEGER, model_calls INTEGER, cost_usd_ticks INTEGER, stop_reason TEXT);
    INSERT INTO usage_ledger (id, recorded_at, source, agent, prompt_id, input_tokens) VALUES (7, '2026-12-01T00:00:00.000Z', 'run', 'grok', 'old', 5);`);
  assert.throws(
    () =>
      raw
        .prepare("INSERT INTO usage_ledger (recorded_at, source, agent, prompt_id) VALUES ('x', 'seat', 'grok', 'p')")
        .run(),
    /CHECK constraint/,
  );
  raw.close();
  recordUsage(
    file,
    ledgerEntriesOf(
      { promptId: "gs-1-p", usage: { inputTokens: 22, outputTokens: 4, modelCalls: 2 } },
      { source: "seat", agent: "grok" },
    ),
  );
  const check = new Database(file, { readonly: true });
  t.after(() => check.close());
  assert.deepEqual(
    check.prepare("SELECT id, source, prompt_id, input_tokens, metered FROM usage_ledger ORDER BY id").all(),
    [
      { id: 7, source: "run", prompt_id: "old", input_tokens: 5, metered: null },
      { id: 8, source: "seat", prompt_id: "gs-1-p", input_tokens: 22, metered: "agent" },
    ],
  );
  assert.ok(check.prepare("SELECT value FROM meta WHERE key = 'migration:grok-seat.usage.v2'").pluck().get());
});

test("seat run records its turn in the ledger before it exits, and a ledger it cannot write is a diagnostic after done, not a failure", async (t) => {
  // The write now overlaps the agent's dispose (P9): it must still land before exit, and still be said when it fails.
  const dir = tempDir(t);
  const grok = fakeGrokBinary();
  t.after(() => grok.remove());
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GROK_SEAT_HOME: join(dir, "home"),
    GROK_BIN: grok.path,
  };
  const ok = await runSeat(["run", "--json", "hi"], { env, cwd: dir });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(
    queryUsage({ journalFile: join(dir, "home", "seats.db"), by: "agent" }).map((row) => [row.key, row.turns]),
    [["grok", 1]],
  );

  const blockedHome = join(dir, "blocked");
  mkdirSync(join(blockedHome, "seats.db"), { recursive: true }); // a directory where the journal file should be
  const blocked = await runSeat(["run", "--json", "hi"], { env: { ...env, GROK_SEAT_HOME: blockedHome }, cwd: dir });
  assert.equal(blocked.code, 0, blocked.stderr);
  const events = blocked.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; diagnostic?: { code: string } });
  const done = events.findIndex((e) => e.type === "done");
  const failed = events.findIndex((e) => e.type === "diagnostic" && e.diagnostic?.code === "JOURNAL_WRITE_FAILED");
  assert.ok(done >= 0 && failed > done, `JOURNAL_WRITE_FAILED after done: ${blocked.stdout}`);
});
