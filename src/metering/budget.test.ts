import { test } from "node:test";
import assert from "node:assert/strict";
import { budgetProblem, createTurnMeter, meteringOf, unmeteredProblem } from "./index.js";
import { isSeatError } from "../errors.js";
import {
  budgetFromArgs,
  joinBudgetValues,
  parseMaxCost,
  parseMaxTokens,
  BUDGET_FLAG_SPEC,
} from "../cli/budget-flags.js";
import { parseFlags } from "../cli/args.js";
import { checkPromptInput } from "../acp/index.js";

test("a negative, zero or non-numeric budget is a usage error naming the value", () => {
  for (const raw of ["-5", "0", "ten", "1.5", "1e3", ""]) {
    assert.throws(
      () => parseMaxTokens("run", raw),
      (e: unknown) => isSeatError(e, "CLI_USAGE") && e.message.includes(`"${raw}"`),
      raw,
    );
  }
  for (const raw of ["-1", "0", "0.00", "free", "1,50", ""]) {
    assert.throws(
      () => parseMaxCost("run", raw),
      (e: unknown) => isSeatError(e, "CLI_USAGE") && e.message.includes(`"${raw}"`),
      raw,
    );
  }
  assert.equal(parseMaxTokens("run", "2000"), 2000);
  assert.equal(parseMaxCost("run", "0.50"), 0.5);
  assert.equal(parseMaxCost("run", "$2"), 2);
});

test("the budget flags read into a TurnBudget; none given means no budget", () => {
  const spec = { ...BUDGET_FLAG_SPEC };
  assert.deepEqual(budgetFromArgs("run", parseFlags("run", ["--max-tokens", "100", "--max-cost", "1.25", "x"], spec)), {
    budget: { maxTokens: 100, maxCostUsd: 1.25 },
    allowUnmetered: false,
  });
  assert.deepEqual(budgetFromArgs("run", parseFlags("run", ["x"], spec)), { allowUnmetered: false });
  assert.deepEqual(budgetFromArgs("run", parseFlags("run", ["--allow-unmetered", "--max-tokens", "7"], spec)), {
    budget: { maxTokens: 7 },
    allowUnmetered: true,
  });
  assert.throws(
    () => budgetFromArgs("submit", parseFlags("submit", joinBudgetValues(["--max-tokens", "-3"]), spec)),
    (e: unknown) => isSeatError(e, "CLI_USAGE") && e.message.includes("seat submit") && e.message.includes('"-3"'),
  );
});

test("a library budget that is not positive, names no limit or has unknown keys is refused before anything is sent", () => {
  assert.equal(budgetProblem({ maxTokens: 10 }), undefined);
  assert.equal(budgetProblem({ maxCostUsd: 0.01 }), undefined);
  for (const bad of [
    {},
    { maxTokens: 0 },
    { maxTokens: -1 },
    { maxTokens: 1.5 },
    { maxTokens: "10" },
    { maxCostUsd: 0 },
    { maxCostUsd: Number.NaN },
    { maxToken: 5 },
    null,
    5,
  ]) {
    assert.ok(budgetProblem(bad), JSON.stringify(bad));
    const refused = checkPromptInput("hi", { budget: bad });
    assert.equal(refused?.code, "ACP_PROMPT_INVALID", JSON.stringify(bad));
    assert.match(refused?.message ?? "", /budget/);
  }
});

test("the meter crosses only when the spend goes over the limit, once, and never counts an unknown cost as zero", () => {
  const meter = createTurnMeter({ maxTokens: 26 });
  assert.equal(meter.add({ inputTokens: 11, outputTokens: 2 }), undefined);
  assert.equal(meter.add({ inputTokens: 11, outputTokens: 2 }), undefined, "exactly the limit is allowed");
  const crossed = meter.add({ totalTokens: 1 });
  assert.equal(crossed?.code, "BUDGET_EXCEEDED");
  assert.match(crossed!.message, /27 tokens over 3 model call/);
  assert.equal(meter.add({ totalTokens: 5 }), undefined, "reported once");
  assert.equal(meter.spent.tokens, 32);

  const cost = createTurnMeter({ maxCostUsd: 0.01 });
  assert.equal(cost.add({ totalTokens: 5, costUsd: 0.006 }), undefined);
  assert.equal(cost.add({ totalTokens: 5 }), undefined);
  assert.equal(cost.spent.costUsd, null, "an unreported cost makes the total unknown");
  assert.equal(cost.add({ totalTokens: 5, costUsd: 1 }), undefined, "an unknown total is never said to be over");

  const priced = createTurnMeter({ maxCostUsd: 0.01 });
  assert.equal(priced.add({ costUsd: 0.006 }), undefined);
  assert.equal(priced.add({ costUsd: 0.006 })?.code, "BUDGET_EXCEEDED");
});

test("grok is metered per call for tokens; other agents are unmetered; a cost budget needs reported cost or prices", () => {
  assert.deepEqual(meteringOf(undefined), { tokensPerCall: true, costPerCall: false });
  assert.deepEqual(meteringOf("grok"), { tokensPerCall: true, costPerCall: false });
  assert.deepEqual(meteringOf("codex"), { tokensPerCall: false, costPerCall: false });
  assert.deepEqual(meteringOf(undefined, ["my-agent"]), { tokensPerCall: false, costPerCall: false });
  assert.equal(unmeteredProblem({ maxTokens: 5 }, meteringOf("grok"), "grok", false), undefined);
  assert.match(
    unmeteredProblem({ maxTokens: 5 }, meteringOf("claude"), "claude", false) ?? "",
    /claude reports no token usage/,
  );
  assert.match(unmeteredProblem({ maxCostUsd: 1 }, meteringOf("grok"), "grok", false) ?? "", /--prices/);
  assert.equal(unmeteredProblem({ maxCostUsd: 1 }, meteringOf("grok"), "grok", true), undefined);
  assert.ok(unmeteredProblem({ maxCostUsd: 1 }, meteringOf("codex"), "codex", true));
});

test("a session budget refuses the next turn once spent, and otherwise bounds it by what is left or its own budget", async () => {
  const { nextTurnBudget } = await import("../usage/index.js");
  assert.deepEqual(nextTurnBudget({ maxTokens: 20 }, { tokens: 14, costUsd: null, turns: 1 }, undefined), {
    budget: { maxTokens: 6 },
  });
  assert.deepEqual(nextTurnBudget({ maxTokens: 20 }, { tokens: 14, costUsd: null, turns: 1 }, { maxTokens: 3 }), {
    budget: { maxTokens: 3 },
  });
  assert.deepEqual(nextTurnBudget({ maxCostUsd: 1 }, { tokens: 0, costUsd: 0.25, turns: 1 }, { maxTokens: 9 }), {
    budget: { maxTokens: 9, maxCostUsd: 0.75 },
  });
  assert.deepEqual(
    nextTurnBudget({ maxCostUsd: 1 }, { tokens: 0, costUsd: null, turns: 1 }, undefined),
    { budget: { maxCostUsd: 1 } },
    "an unknown spend leaves the whole limit (nothing known was spent)",
  );
  const spent = nextTurnBudget({ maxTokens: 20 }, { tokens: 20, costUsd: null, turns: 2 }, undefined);
  assert.ok(
    "refusal" in spent && /20 tokens over 2 turn\(s\), its whole budget of 20; nothing was sent/.test(spent.refusal),
  );
  assert.ok("refusal" in nextTurnBudget({ maxCostUsd: 0.5 }, { tokens: 0, costUsd: 0.5, turns: 1 }, undefined));
});
