/*
 * ACP schema check for tests: validates wire messages against the SDK's shipped JSON Schema.
 * Owns: one strict Ajv 2020 instance over `@agentclientprotocol/sdk/schema/v1/schema.json`, the choice of
 *   `$def` per message (requests and notifications by method, responses by the remembered id → method), and
 *   small hand-written schemas for grok's extensions (`_x.ai/*`, `session/set_model`) derived from the
 *   recorded transcripts.
 * Does not own: reading transcripts or spawning agents (the tests do that).
 * Invariant: direction names the SENDER: "client" = client → agent, "agent" = agent → client. Request ids are
 *   remembered per sender, because both sides count from 0.
 * Spec: shared reference acp-mcp-notes.md §1.1.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { ErrorObject, ValidateFunction } from "ajv";

const require = createRequire(import.meta.url);
const acpSchema = require("@agentclientprotocol/sdk/schema/v1/schema.json") as {
  $defs: Record<string, Record<string, unknown>>;
};
const addFormats = addFormatsModule.default;

/** Who sent a message. */
export type AcpDirection = "client" | "agent";

/** The outcome of validating one message: `def` names the schema used (null when none applied). */
export interface AcpValidation {
  ok: boolean;
  errors: string[];
  def: string | null;
}

/** A validator that remembers request ids so it can check the responses to them. */
export interface AcpValidator {
  validate(msg: unknown, direction: AcpDirection): AcpValidation;
}

const X_KEYWORDS = [
  "x-side",
  "x-method",
  "x-docs-ignore",
  "x-deserialize-default-on-error",
  "x-deserialize-default-on-null",
  "x-deserialize-skip-invalid-items",
  "discriminator",
];

const nonNegInt = { type: "integer", minimum: 0 };
const str = { type: "string" };
const sessionId = str;

/** Extension schemas, keyed `<kind>:<method>` (kind request | response | notification). From transcripts of 1.0.41. */
const EXTENSION_SCHEMAS: Record<string, Record<string, unknown>> = {
  "notification:_x.ai/queue/changed": {
    type: "object",
    required: ["sessionId", "entries"],
    properties: {
      sessionId,
      entries: {
        type: "array",
        items: {
          type: "object",
          required: ["id", "version", "kind", "text", "position"],
          properties: {
            id: str,
            version: nonNegInt,
            kind: str,
            text: str,
            position: nonNegInt,
            owner: str,
            lastEditor: str,
            combinedTexts: { type: "array", items: str },
          },
        },
      },
      runningPromptId: str,
      runningText: str,
      runningKind: str,
      runningCombinedTexts: { type: "array", items: str },
    },
    dependentRequired: { runningPromptId: ["runningKind"] },
  },
  "notification:_x.ai/mcp_initialized": {
    type: "object",
    required: ["sessionId", "mcpToolCount", "elapsedMs"],
    properties: { sessionId, mcpToolCount: nonNegInt, elapsedMs: nonNegInt },
  },
  "notification:_x.ai/session/prompt_complete": {
    type: "object",
    required: ["sessionId", "promptId", "stopReason"],
    properties: {
      sessionId,
      promptId: str,
      stopReason: { enum: ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"] },
      agentResult: {},
    },
  },
  "notification:_x.ai/session/setup": {
    type: "object",
    required: ["method", "phase", "sessionId"],
    properties: { method: str, phase: str, sessionId: { type: ["string", "null"] } },
  },
  "request:session/set_model": {
    type: "object",
    required: ["sessionId", "modelId"],
    properties: { sessionId, modelId: str, _meta: { type: ["object", "null"] } },
  },
  "response:session/set_model": {
    type: "object",
    properties: { _meta: { type: ["object", "null"] } },
  },
};

let ajvInstance: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function ajv(): Ajv2020 {
  if (ajvInstance) return ajvInstance;
  const instance = new Ajv2020({ strict: true, allErrors: true });
  addFormats(instance);
  instance.addVocabulary(X_KEYWORDS);
  for (const f of ["uint16", "uint32", "uint64"])
    instance.addFormat(f, { type: "number", validate: (n: number) => Number.isInteger(n) && n >= 0 });
  instance.addSchema(acpSchema, "acp");
  ajvInstance = instance;
  return instance;
}

function validatorFor(ref: string): ValidateFunction {
  let fn = compiled.get(ref);
  if (!fn) {
    const ext = EXTENSION_SCHEMAS[ref];
    fn = ext ? ajv().compile(ext) : ajv().getSchema(`acp#/$defs/${ref}`);
    if (!fn) throw new Error(`acp-schema: no $def ${ref}`);
    compiled.set(ref, fn);
  }
  return fn;
}

type Kind = "request" | "response" | "notification";
const SUFFIX: Record<Kind, string> = { request: "Request", response: "Response", notification: "Notification" };

/** The `$def` for a method: `x-side` names the side that HANDLES the method. */
function defFor(kind: Kind, method: string, handler: AcpDirection | "protocol"): string | undefined {
  for (const [name, def] of Object.entries(acpSchema.$defs)) {
    if (
      def["x-method"] === method &&
      name.endsWith(SUFFIX[kind]) &&
      (def["x-side"] === handler || def["x-side"] === "protocol")
    )
      return name;
  }
  const ext = `${kind}:${method}`;
  return EXTENSION_SCHEMAS[ext] ? ext : undefined;
}

function formatErrors(errors: ErrorObject[] | null | undefined, def: string): string[] {
  return (errors ?? []).map(
    (e) =>
      `${def}${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""}`,
  );
}

function run(ref: string, value: unknown): AcpValidation {
  const fn = validatorFor(ref);
  return fn(value) ? { ok: true, errors: [], def: ref } : { ok: false, errors: formatErrors(fn.errors, ref), def: ref };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const other = (d: AcpDirection): AcpDirection => (d === "client" ? "agent" : "client");

/** Creates a validator with its own id → method memory (one per connection under test). */
export function createAcpValidator(): AcpValidator {
  const pending = new Map<string, string>();
  return {
    validate(msg: unknown, direction: AcpDirection): AcpValidation {
      if (!isObject(msg)) return { ok: false, errors: ["message is not a JSON object"], def: null };
      if (msg.jsonrpc !== "2.0")
        return { ok: false, errors: [`jsonrpc must be "2.0", got ${JSON.stringify(msg.jsonrpc)}`], def: null };
      const hasId = "id" in msg && (typeof msg.id === "number" || typeof msg.id === "string");
      if (typeof msg.method === "string") {
        const kind: Kind = hasId ? "request" : "notification";
        if (hasId) pending.set(`${direction}:${String(msg.id)}`, msg.method);
        const def = defFor(kind, msg.method, other(direction));
        if (def) return run(def, msg.params ?? null);
        if (msg.method.startsWith("_")) return { ok: true, errors: [], def: null };
        return {
          ok: false,
          errors: [`unknown ${kind} method ${JSON.stringify(msg.method)} sent by the ${direction}`],
          def: null,
        };
      }
      if (!("id" in msg)) return { ok: false, errors: ["message has neither method nor id"], def: null };
      const method = pending.get(`${other(direction)}:${String(msg.id)}`);
      pending.delete(`${other(direction)}:${String(msg.id)}`);
      if ("error" in msg) return run("Error", msg.error);
      if (!("result" in msg)) return { ok: false, errors: ["response has neither result nor error"], def: null };
      if (method === undefined)
        return {
          ok: false,
          errors: [`response id ${JSON.stringify(msg.id)} answers no request the ${other(direction)} sent`],
          def: null,
        };
      const def = defFor("response", method, direction);
      if (def) return run(def, msg.result);
      if (method.startsWith("_")) return { ok: true, errors: [], def: null };
      return { ok: false, errors: [`no schema for the result of ${JSON.stringify(method)}`], def: null };
    },
  };
}

const shared = createAcpValidator();

/** Validates one message with a process-wide validator (its id memory spans every call). */
export function validateAcpMessage(msg: unknown, direction: AcpDirection): AcpValidation {
  return shared.validate(msg, direction);
}
