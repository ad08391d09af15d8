import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020.js";
import { projectSchema } from "./projection.js";

// A small grammar of schemas: scalars, arrays, objects and anyOf/oneOf unions of them.
const leaf = fc.oneof(
  fc.constant({ type: "string" }),
  fc.constant({ type: "integer", minimum: 0 }),
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc.constant({ enum: ["a", "b"] }),
  fc.constant({ type: "array", items: { type: "number" } }),
  fc.constant({ type: "object", properties: { id: { type: "integer" } }, required: ["id"] }),
  fc.constant({
    type: "object",
    properties: { name: { type: "string" } },
    required: ["name"],
    additionalProperties: false,
  }),
);
const schema = fc.oneof(
  leaf,
  fc.array(leaf, { minLength: 1, maxLength: 3 }).map((alternatives) => ({ anyOf: alternatives })),
  fc.array(leaf, { minLength: 1, maxLength: 3 }).map((alternatives) => ({ oneOf: alternatives })),
);
const value = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.integer({ min: -2, max: 2 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("a", "b"),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.record({ id: fc.integer({ min: -1, max: 1 }) }),
  fc.record({ name: fc.string({ maxLength: 2 }) }),
);

const ajv = new Ajv2020({ strict: false });

test("every listed schema has root type object and accepts exactly what the original accepts (after unwrapping)", () => {
  fc.assert(
    fc.property(schema, value, (original, input) => {
      const { listed, wrapped } = projectSchema(original);
      assert.equal(listed.type, "object");
      const listedOk = ajv.validate(listed, wrapped ? { input } : input);
      const originalOk = ajv.validate(original, input);
      if (wrapped) {
        assert.equal(listedOk, originalOk);
      } else if (typeof input === "object" && input !== null && !Array.isArray(input)) {
        // Not wrapped: the original only admits objects, and the listing agrees on every object argument.
        assert.equal(listedOk, originalOk);
      }
    }),
    { numRuns: 500 },
  );
});
