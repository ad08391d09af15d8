import { test } from "node:test";
import assert from "node:assert/strict";
import { admitCall, type MeteredCall } from "./index.js";

const main = (input: number, output: number, extra: Partial<MeteredCall> = {}): MeteredCall => ({
  kind: "main",
  promptId: "p",
  requestBytes: input * 4,
  status: 200,
  inputTokens: input,
  outputTokens: output,
  ...extra,
});
const next = { kind: "main" as const, promptId: "p", requestBytes: 400 };

test("a turn's next model call passes while its spend is within the budget (exactly the limit included) and is refused once it is over", () => {
  assert.deepEqual(admitCall(next, [], { maxTokens: 5 }), {}, "the first call is never refused");
  assert.deepEqual(admitCall(next, [main(11, 2)], { maxTokens: 13 }), {}, "spending exactly the limit is allowed");
  const over = admitCall(next, [main(11, 2)], { maxTokens: 5 });
  assert.match(over.refused ?? "", /already spent more than its budget \(13 tokens over 1 model call/);
  assert.equal(over.crossed?.code, "BUDGET_EXCEEDED");
  assert.match(over.crossed!.message, /13 tokens over 1 model call\(s\), more than its budget of 5; it was cancelled/);
  assert.match(over.crossed!.message, /refused before it reached the model/);
});

test("the spend counts the side calls the turn made, and no refused call nor one whose usage was never read", () => {
  const title: MeteredCall = {
    kind: "title",
    promptId: "p",
    requestBytes: 40,
    status: 200,
    inputTokens: 11,
    outputTokens: 1,
  };
  assert.equal(admitCall(next, [title, main(11, 2)], { maxTokens: 20 }).crossed?.code, "BUDGET_EXCEEDED");
  const refused: MeteredCall = { ...title, refused: true, status: 402 };
  const unread: MeteredCall = { kind: "main", promptId: "p", requestBytes: 9_000, status: 0 };
  assert.deepEqual(admitCall(next, [refused, unread, main(11, 2)], { maxTokens: 13 }), {});
});

test("a side call is refused on its estimated input; a main call never is on an estimate", () => {
  const summary = { kind: "turn_summary" as const, promptId: "p", requestBytes: 4_000 };
  // The main call sent 44 bytes for 11 tokens: 4 bytes a token, so the summary's 4,000 bytes are about 1,000 tokens.
  const refused = admitCall(summary, [main(11, 2)], { maxTokens: 500 });
  assert.match(refused.refused ?? "", /spent 13 tokens and this turn_summary call would send about 1000 more/);
  assert.equal(refused.crossed, undefined, "a side call's refusal does not end the turn");
  assert.deepEqual(admitCall(summary, [main(11, 2)], { maxTokens: 1_013 }), {});
  assert.deepEqual(admitCall({ ...next, requestBytes: 40_000 }, [main(11, 2)], { maxTokens: 20 }), {});
});

test("a cost budget counts a call's cost from the price function; an unknown cost never refuses", () => {
  const perToken = ({ inputTokens, outputTokens }: { inputTokens: number; outputTokens: number }) =>
    (inputTokens + outputTokens) / 1_000;
  assert.equal(admitCall(next, [main(11, 2)], { maxCostUsd: 0.01 }, perToken).crossed?.code, "BUDGET_EXCEEDED");
  assert.deepEqual(admitCall(next, [main(11, 2)], { maxCostUsd: 0.02 }, perToken), {});
  assert.deepEqual(admitCall(next, [main(11, 2)], { maxCostUsd: 0.01 }), {}, "no price: the cost is unknown");
});
