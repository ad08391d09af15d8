import { test } from "node:test";
import assert from "node:assert/strict";
import { projectSchema } from "./projection.js";

test("lists an object schema unchanged apart from its root type", () => {
  const original = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
  const { listed, wrapped } = projectSchema(original);
  assert.equal(wrapped, false);
  assert.deepEqual(listed, original);
});

test("adds root type object to an object union and keeps the union alongside it", () => {
  const original = {
    oneOf: [
      { type: "object", properties: { id: { type: "integer" } }, required: ["id"] },
      { type: "object", properties: { slug: { type: "string" } }, required: ["slug"] },
    ],
  };
  const { listed, wrapped } = projectSchema(original);
  assert.equal(wrapped, false);
  assert.equal(listed.type, "object");
  assert.deepEqual(listed.oneOf, original.oneOf);
  assert.equal("type" in original, false, "the original is not mutated");
});

test("wraps a scalar root under input", () => {
  const { listed, wrapped } = projectSchema({ type: "string", minLength: 1 });
  assert.equal(wrapped, true);
  assert.deepEqual(listed, {
    type: "object",
    properties: { input: { type: "string", minLength: 1 } },
    required: ["input"],
    additionalProperties: false,
  });
});

test("wraps an array root and a union that has a non-object alternative", () => {
  assert.equal(projectSchema({ type: "array", items: { type: "number" } }).wrapped, true);
  assert.equal(projectSchema({ anyOf: [{ type: "object" }, { type: "string" }] }).wrapped, true);
  assert.equal(projectSchema({ enum: ["a", "b"] }).wrapped, true);
  assert.equal(projectSchema(false).wrapped, true);
});

test("follows a local $ref to decide, and hoists $defs when wrapping so pointers still resolve", () => {
  const objectRef = {
    $ref: "#/$defs/Point",
    $defs: { Point: { type: "object", properties: { x: { type: "number" } } } },
  };
  const kept = projectSchema(objectRef);
  assert.equal(kept.wrapped, false);
  assert.equal(kept.listed.type, "object");
  assert.equal(kept.listed.$ref, "#/$defs/Point");

  const scalarRef = { $ref: "#/$defs/Name", $defs: { Name: { type: "string" } } };
  const wrapped = projectSchema(scalarRef);
  assert.equal(wrapped.wrapped, true);
  assert.deepEqual(wrapped.listed.$defs, scalarRef.$defs);
  assert.deepEqual((wrapped.listed.properties as Record<string, unknown>).input, scalarRef);
});

test("narrows a nullable object and lists an empty schema as an object", () => {
  assert.deepEqual(projectSchema({ type: ["object", "null"] }), { listed: { type: "object" }, wrapped: false });
  assert.deepEqual(projectSchema({}), { listed: { type: "object" }, wrapped: false });
  assert.deepEqual(projectSchema(true), { listed: { type: "object" }, wrapped: false });
});

test("moves $schema to the wrapper root", () => {
  const { listed } = projectSchema({ $schema: "http://json-schema.org/draft-07/schema#", type: "integer" });
  assert.equal(listed.$schema, "http://json-schema.org/draft-07/schema#");
  assert.deepEqual((listed.properties as Record<string, unknown>).input, { type: "integer" });
});

test("wrap-unions (Claude) wraps an object-shaped root union that object-with-unions keeps at the root", () => {
  const union = {
    anyOf: [
      { type: "object", properties: { a: { type: "number" } } },
      { type: "object", properties: { b: { type: "string" } } },
    ],
  };
  const kept = projectSchema(union);
  assert.equal(kept.wrapped, false);
  assert.ok("anyOf" in kept.listed);
  const wrapped = projectSchema(union, "wrap-unions");
  assert.equal(wrapped.wrapped, true);
  assert.deepEqual(
    Object.keys(wrapped.listed).filter((k) => ["anyOf", "oneOf", "allOf"].includes(k)),
    [],
    "no root union is listed",
  );
  assert.deepEqual((wrapped.listed.properties as Record<string, unknown>).input, union);
  const plain = projectSchema({ type: "object", properties: { a: { type: "number" } } }, "wrap-unions");
  assert.equal(plain.wrapped, false, "a plain object root is never wrapped");
});
