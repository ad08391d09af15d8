/*
 * The usage ledger on a real sqlite journal: rows per turn and model, unknown kept unknown, totals grouped and
 * filtered, costs labelled with their source, and the price file's bad values named.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ledgerEntriesOf, loadPrices, queryUsage, recordUsage } from "../../src/usage/index.js";
import { openJournal } from "../../src/journal/index.js";
import { isSeatError } from "../../src/errors.js";
import { runSeat } from "../support/cli.js";
import { fakeGrokBinary } from "../support/fake-agent.js";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-usage-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** grok's prompt response `_meta` for a turn of two model calls on one model. */
const GROK_META = {
  sessionId: "s", promptId: "p1", modelId: "mock-model", inputTokens: 11, outputTokens: 3,
  usage: { inputTokens: 22, outputTokens: 5, totalTokens: 27, cachedReadTokens: 0, reasoningTokens: 0, modelCalls: 2, modelUsage: { "mock-model": { inputTokens: 22, outputTokens: 5, totalTokens: 27, cachedReadTokens: 0, reasoningTokens: 0, modelCalls: 2 } } },
};

test("a turn becomes one ledger row per model; a turn that reported nothing is a row of unknowns, never zeros", () => {
  const at = new Date("2026-12-01T10:00:00Z");
  const [row] = ledgerEntriesOf({ promptId: "p1", stopReason: "end_turn", usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2 }, responseMeta: GROK_META }, { source: "run", agent: "grok", now: at });
  assert.deepEqual(row, { recordedAt: at.toISOString(), source: "run", agent: "grok", session: null, sessionRow: null, jobId: null, promptId: "p1", stopReason: "end_turn", model: "mock-model", inputTokens: 22, outputTokens: 5, cachedTokens: 0, reasoningTokens: 0, modelCalls: 2, costUsdTicks: null });
  const [silent] = ledgerEntriesOf({ promptId: "p2", stopReason: "end_turn" }, { source: "session", agent: "codex", session: "alpha", model: "gpt-x", now: at });
  assert.equal(silent!.model, "gpt-x");
  for (const key of ["inputTokens", "outputTokens", "cachedTokens", "reasoningTokens", "modelCalls", "costUsdTicks"] as const) assert.equal(silent![key], null, key);
  const two = ledgerEntriesOf({ promptId: "p3", usage: { costUsdTicks: 5e9 }, responseMeta: { usage: { costUsdTicks: 5e9, modelUsage: { a: { inputTokens: 1, outputTokens: 1, costUsdTicks: 2e9 }, b: { inputTokens: 2, outputTokens: 2 } } } } }, { source: "job", agent: "grok", jobId: "j1", now: at });
  assert.deepEqual(two.map((r) => [r.model, r.costUsdTicks, r.jobId]), [["a", 2e9, "j1"], ["b", null, "j1"]], "a cost split over models is only known where grok said it");
});

test("seat usage totals group by agent, model, session, job and day, filter by date, and keep unknown apart from zero", (t) => {
  const dir = tempDir(t);
  const file = join(dir, "seats.db");
  openJournal(file).close();
  const day1 = new Date("2026-11-30T12:00:00Z");
  const day2 = new Date("2026-12-01T12:00:00Z");
  recordUsage(file, [
    ...ledgerEntriesOf({ promptId: "r1", usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2 }, responseMeta: GROK_META }, { source: "run", agent: "grok", now: day1 }),
    ...ledgerEntriesOf({ promptId: "s1", usage: { inputTokens: 10, outputTokens: 1, modelCalls: 1, costUsdTicks: 2.5e8 } }, { source: "session", agent: "grok", session: "alpha", model: "grok-4", now: day2 }),
    ...ledgerEntriesOf({ promptId: "c1" }, { source: "job", agent: "codex", jobId: "job-9", now: day2 }),
  ]);
  const [all] = queryUsage({ journalFile: file });
  assert.deepEqual(all, { key: "all", turns: 3, modelCalls: 3, inputTokens: 32, outputTokens: 6, cachedTokens: 0, reasoningTokens: 0, unreportedTurns: 1, costUsd: 0.025, costSource: "reported", unpricedTurns: 2 });
  const byAgent = queryUsage({ journalFile: file, by: "agent" });
  assert.deepEqual(byAgent.map((g) => [g.key, g.turns, g.inputTokens]), [["grok", 2, 32], ["codex", 1, null]], "an agent that reported nothing totals unknown, not 0");
  assert.deepEqual(queryUsage({ journalFile: file, by: "day" }).map((g) => [g.key, g.turns]), [["2026-11-30", 1], ["2026-12-01", 2]]);
  assert.deepEqual(queryUsage({ journalFile: file, by: "session" }).map((g) => g.key), ["unknown", "alpha"]);
  assert.deepEqual(queryUsage({ journalFile: file, by: "job" }).map((g) => g.key), ["unknown", "job-9"]);
  assert.deepEqual(queryUsage({ journalFile: file, by: "model" }).map((g) => g.key), ["mock-model", "grok-4", "unknown"]);
  assert.deepEqual(queryUsage({ journalFile: file, since: "2026-12-01" }).map((g) => g.turns), [2]);
  assert.deepEqual(queryUsage({ journalFile: file, until: "2026-12-01" }).map((g) => g.turns), [1]);
  assert.throws(() => queryUsage({ journalFile: file, since: "yesterday" }), (e: unknown) => isSeatError(e, "CLI_USAGE") && e.message.includes('"yesterday"'));
  // Prices turn reported tokens into a cost labelled with the file; a reported cost stays "reported".
  const pricesFile = join(dir, "prices.json");
  writeFileSync(pricesFile, JSON.stringify({ schema: "grok-seat.prices.v1", models: { "mock-model": { input: 1, output: 10 } } }));
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
    [JSON.stringify({ schema: "grok-seat.prices.v1", models: { m: { input: 1, output: "cheap" } } }), /"m" output "cheap"/],
  ];
  for (const [i, [text, pattern]] of cases.entries()) {
    const file = join(dir, `p${i}.json`);
    writeFileSync(file, text);
    assert.throws(() => loadPrices(file), (e: unknown) => isSeatError(e, "PRICES_INVALID") && pattern.test(e.message), text);
  }
  assert.throws(() => loadPrices(join(dir, "missing.json")), (e: unknown) => isSeatError(e, "PRICES_INVALID") && /ENOENT/.test(e.message));
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
  assert.deepEqual(csv.stdout.trim().split("\n"), ["key,turns,modelCalls,inputTokens,outputTokens,cachedTokens,reasoningTokens,unreportedTurns,costUsd,costSource,unpricedTurns", "codex,1,,,,,,1,,unknown,1"]);
});

test("seat run records its turn in the ledger before it exits, and a ledger it cannot write is a diagnostic after done, not a failure", async (t) => {
  // The write now overlaps the agent's dispose (P9): it must still land before exit, and still be said when it fails.
  const dir = tempDir(t);
  const grok = fakeGrokBinary();
  t.after(() => grok.remove());
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: join(dir, "home"), GROK_BIN: grok.path };
  const ok = await runSeat(["run", "--json", "hi"], { env, cwd: dir });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(queryUsage({ journalFile: join(dir, "home", "seats.db"), by: "agent" }).map((row) => [row.key, row.turns]), [["grok", 1]]);

  const blockedHome = join(dir, "blocked");
  mkdirSync(join(blockedHome, "seats.db"), { recursive: true }); // a directory where the journal file should be
  const blocked = await runSeat(["run", "--json", "hi"], { env: { ...env, GROK_SEAT_HOME: blockedHome }, cwd: dir });
  assert.equal(blocked.code, 0, blocked.stderr);
  const events = blocked.stdout.trim().split("\n").map((line) => JSON.parse(line) as { type: string; diagnostic?: { code: string } });
  const done = events.findIndex((e) => e.type === "done");
  const failed = events.findIndex((e) => e.type === "diagnostic" && e.diagnostic?.code === "JOURNAL_WRITE_FAILED");
  assert.ok(done >= 0 && failed > done, `JOURNAL_WRITE_FAILED after done: ${blocked.stdout}`);
});
