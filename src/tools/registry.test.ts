import { test } from "node:test";
import { registerSecrets } from "../internal/redact.js";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import {
  buildToolRegistry,
  createToolRegistry,
  EXECUTE_ERROR_MODEL_CHARS,
  HostToolError,
  isHostToolError,
  type HostTool,
} from "./registry.js";

const signal = new AbortController().signal;

function recorder(name: string, inputSchema: HostTool["inputSchema"]): HostTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name,
    description: `records ${name}`,
    inputSchema,
    calls,
    execute(args) {
      calls.push(args);
      return { echoed: args };
    },
  };
}

const union = {
  oneOf: [
    { type: "object", properties: { id: { type: "integer" } }, required: ["id"], additionalProperties: false },
    {
      type: "object",
      properties: { slug: { type: "string", format: "email" } },
      required: ["slug"],
      additionalProperties: false,
    },
  ],
};

test("runs a valid call and returns its JSON result as text", async () => {
  const tool = recorder("lookup", union);
  const registry = createToolRegistry([tool]);
  const result = await registry.call("lookup", { id: 7 }, signal);
  assert.equal(result.isError, undefined);
  assert.deepEqual(JSON.parse(result.content[0]!.text), { echoed: { id: 7 } });
  const second = await registry.call("lookup", { slug: "a@b.example" }, signal);
  assert.equal(second.isError, undefined);
  assert.equal(tool.calls.length, 2);
});

test("refuses arguments matching no union alternative, naming the failing path, without running the tool", async () => {
  const tool = recorder("lookup", union);
  const registry = createToolRegistry([tool]);
  const result = await registry.call("lookup", { id: "seven" }, signal);
  assert.equal(result.isError, true);
  assert.match(result.content[0]!.text, /\/id must be integer/);
  assert.match(result.content[0]!.text, /TOOL_INVALID_ARGS/);
  const badFormat = await registry.call("lookup", { slug: "not-an-email" }, signal);
  assert.match(badFormat.content[0]!.text, /\/slug must match format "email"/);
  assert.equal(tool.calls.length, 0);
});

test("unwraps input for a scalar-root tool and names /input in refusals", async () => {
  const tool = recorder("shout", { type: "string", minLength: 2 });
  const registry = createToolRegistry([tool]);
  assert.equal(registry.isWrapped("shout"), true);
  const ok = await registry.call("shout", { input: "hey" }, signal);
  assert.equal(ok.isError, undefined);
  assert.deepEqual(tool.calls, ["hey"]);
  const bad = await registry.call("shout", { input: "h" }, signal);
  assert.match(bad.content[0]!.text, /\/input must NOT have fewer than 2 characters/);
  const missing = await registry.call("shout", {}, signal);
  assert.match(missing.content[0]!.text, /required property 'input'/);
  assert.equal(tool.calls.length, 1);
});

test("validates against $ref/$defs in the original schema", async () => {
  const tool = recorder("move", {
    type: "object",
    properties: { to: { $ref: "#/$defs/Point" } },
    required: ["to"],
    $defs: { Point: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } },
  });
  const registry = createToolRegistry([tool]);
  assert.equal((await registry.call("move", { to: { x: 1 } }, signal)).isError, undefined);
  const bad = await registry.call("move", { to: {} }, signal);
  assert.match(bad.content[0]!.text, /\/to must have required property 'x'/);
});

test("turns a HostToolError into an isError result carrying the message, and strings pass through as text", async () => {
  const registry = createToolRegistry([
    {
      name: "boom",
      description: "",
      inputSchema: { type: "object" },
      execute: () => {
        throw new HostToolError("disk on fire");
      },
    },
    { name: "hello", description: "", inputSchema: { type: "object" }, execute: async () => "hi" },
  ]);
  const failed = await registry.call("boom", {}, signal);
  assert.equal(failed.isError, true);
  assert.match(failed.content[0]!.text, /disk on fire/);
  assert.deepEqual(await registry.call("hello", {}, signal), { content: [{ type: "text", text: "hi" }] });
  const unknown = await registry.call("nope", {}, signal);
  assert.match(unknown.content[0]!.text, /TOOL_NOT_FOUND/);
});

test("refuses a schema that does not compile, a bad name and a duplicate at registration", () => {
  const bad = { name: "x", description: "", inputSchema: { type: "nonsense" }, execute: () => 1 };
  assert.throws(
    () => createToolRegistry([bad]),
    (e) => isSeatError(e, "TOOL_SCHEMA_INVALID") && /"x"/.test(e.message),
  );
  const badName = { name: "has space", description: "", inputSchema: { type: "object" }, execute: () => 1 };
  assert.throws(
    () => createToolRegistry([badName]),
    (e) => isSeatError(e, "TOOL_SCHEMA_INVALID"),
  );
  const ok = { name: "a", description: "", inputSchema: { type: "object" }, execute: () => 1 };
  assert.throws(
    () => createToolRegistry([ok, ok]),
    (e) => isSeatError(e, "TOOL_SCHEMA_INVALID"),
  );
});

test("accepts a draft-07 schema as zod-to-json-schema emits it", async () => {
  const registry = createToolRegistry([
    recorder("z", {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { type: "number" } },
    }),
  ]);
  assert.equal((await registry.call("z", { n: 1 }, signal)).isError, undefined);
});

test("keeps tools whose schemas share an $id apart, each validating against its own schema", async () => {
  const a = recorder("a", {
    $id: "https://schemas.example/args",
    type: "object",
    properties: { n: { type: "number" } },
    required: ["n"],
  });
  const b = recorder("b", {
    $id: "https://schemas.example/args",
    type: "object",
    properties: { s: { type: "string" } },
    required: ["s"],
  });
  const registry = createToolRegistry([a, b]);
  assert.equal((await registry.call("a", { n: 1 }, signal)).isError, undefined);
  assert.equal((await registry.call("b", { s: "x" }, signal)).isError, undefined);
  assert.match((await registry.call("b", { n: 1 }, signal)).content[0]!.text, /required property 's'/);
});

test("a throwing execute reaches the model as a bare TOOL_EXECUTE_FAILED, no word of its message; the host hook gets the whole error", async () => {
  const thrown = new Error("upstream refused: api_key=sk-live-4f9a8b7c6d5e4f3a2b1c\nstack detail with token=abc123");
  const seen: Array<[string, unknown]> = [];
  const registry = createToolRegistry(
    [
      {
        name: "boom",
        description: "",
        inputSchema: { type: "object" },
        execute: () => {
          throw thrown;
        },
      },
      {
        name: "str",
        description: "",
        inputSchema: { type: "object" },
        execute: () => {
          throw "password=hunter2";
        },
      },
    ],
    { onExecuteError: (name, error) => void seen.push([name, error]) },
  );
  const failed = await registry.call("boom", {}, signal);
  assert.equal(failed.isError, true);
  assert.equal(failed.content[0]!.text, 'Host tool "boom" failed [TOOL_EXECUTE_FAILED]');
  assert.equal(
    (await registry.call("str", {}, signal)).content[0]!.text,
    'Host tool "str" failed [TOOL_EXECUTE_FAILED]',
  );
  assert.deepEqual(seen, [
    ["boom", thrown],
    ["str", "password=hunter2"],
  ]);
});

test("a HostToolError's first line reaches the model, bounded and with known secret values masked", async () => {
  registerSecrets({ OPENAI_API_KEY: "sk-live-4f9a8b7c6d5e4f3a2b1c" });
  const registry = createToolRegistry([
    {
      name: "quota",
      description: "",
      inputSchema: { type: "object" },
      execute: () => {
        throw new HostToolError("quota exceeded, retry in 5 s (key sk-live-4f9a8b7c6d5e4f3a2b1c)\nsecond line");
      },
    },
    {
      name: "long",
      description: "",
      inputSchema: { type: "object" },
      execute: () => {
        throw new HostToolError("x".repeat(1_000));
      },
    },
    {
      name: "foreign",
      description: "",
      inputSchema: { type: "object" },
      execute: () => {
        throw Object.assign(new Error("from another copy of grok-seat"), {
          [Symbol.for("grok-seat.HostToolError")]: true,
        });
      },
    },
  ]);
  assert.equal(
    (await registry.call("quota", {}, signal)).content[0]!.text,
    'Host tool "quota" failed: quota exceeded, retry in 5 s (key [redacted]) [TOOL_EXECUTE_FAILED]',
  );
  const long = (await registry.call("long", {}, signal)).content[0]!.text;
  assert.ok(long.length < EXECUTE_ERROR_MODEL_CHARS + 80, `bounded (${long.length})`);
  assert.match(long, /…\s\[TOOL_EXECUTE_FAILED\]$/);
  assert.equal(
    (await registry.call("foreign", {}, signal)).content[0]!.text,
    'Host tool "foreign" failed: from another copy of grok-seat [TOOL_EXECUTE_FAILED]',
  );
  assert.equal(isHostToolError(new HostToolError("m")), true);
  assert.equal(isHostToolError(new Error("m")), false);
});

test("buildToolRegistry omits only the unusable tools, each with TOOL_SCHEMA_INVALID naming it, and serves the rest", async () => {
  const good = { name: "good", description: "", inputSchema: { type: "object" }, execute: () => "fine" };
  const { registry, omitted } = buildToolRegistry([
    { name: "broken", description: "", inputSchema: { type: "nonsense" }, execute: () => 1 },
    good,
    { name: "has space", description: "", inputSchema: { type: "object" }, execute: () => 1 },
    good,
  ]);
  assert.deepEqual(
    registry.tools.map((t) => t.name),
    ["good"],
  );
  assert.deepEqual(
    omitted.map((o) => [o.index, o.toolName, o.error.code]),
    [
      [0, "broken", "TOOL_SCHEMA_INVALID"],
      [2, undefined, "TOOL_SCHEMA_INVALID"],
      [3, "good", "TOOL_SCHEMA_INVALID"],
    ],
  );
  assert.match(omitted[0]!.error.message, /"broken"/);
  assert.deepEqual(await registry.call("good", {}, signal), { content: [{ type: "text", text: "fine" }] });
});
