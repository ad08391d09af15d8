import { test } from "node:test";
import assert from "node:assert/strict";
import { catalogueModelIds, unknownModelError } from "./model-check.js";

const answer = {
  sessionId: "s",
  models: {
    currentModelId: "grok-4.6",
    availableModels: [{ modelId: "grok-4.6" }, { modelId: "mock" }, { name: "no id" }],
  },
};

test("catalogueModelIds reads models.availableModels[].modelId and ignores entries without an id", () => {
  assert.deepEqual(catalogueModelIds(answer), ["grok-4.6", "mock"]);
  assert.equal(catalogueModelIds({ sessionId: "s" }), undefined);
  assert.equal(catalogueModelIds(null), undefined);
});

test("unknownModelError refuses an id the catalogue lacks, naming the available ids, and never refuses without evidence", () => {
  const error = unknownModelError("nope/!!", answer);
  assert.equal(error?.code, "MODEL_UNKNOWN");
  assert.match(error!.message, /"nope\/!!" is not one grok offers; available: grok-4\.6, mock\./);
  assert.deepEqual(error!.context.availableModels, ["grok-4.6", "mock"]);
  assert.equal(unknownModelError("mock", answer), undefined);
  assert.equal(unknownModelError(undefined, answer), undefined);
  assert.equal(unknownModelError("nope", { sessionId: "s" }), undefined, "no catalogue: no check");
  assert.equal(
    unknownModelError("nope", { models: { availableModels: [] } }),
    undefined,
    "an empty catalogue: no check",
  );
});
