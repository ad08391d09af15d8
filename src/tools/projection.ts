/*
 * Schema projection: the inputSchema a host tool is LISTED with over MCP, derived from its original schema.
 * Owns: projectSchema() and the wrap/unwrap rule for arguments.
 * Does not own: validating calls (validation.ts validates against the ORIGINAL, never the listed schema).
 * Invariant: every listed schema has root `type: "object"` (MCP requires it; the MCP TS SDK client rejects
 *   the whole tool list otherwise, see docs acp-mcp-notes §3).
 * Decision (ADR 0224 + peers' wrap rule), applied in this order:
 *   1. A root that is object-shaped — `type: "object"` (or a type list containing "object"), object keywords
 *      without a type, a local `$ref` to an object-shaped definition, or an `anyOf`/`oneOf` whose alternatives
 *      are ALL object-shaped — is listed as the original plus root `type: "object"`; unions stay alongside it.
 *      A type list such as ["object","null"] is narrowed to "object": MCP arguments are always an object.
 *   2. Anything else — a scalar or array root, a union with a non-object alternative, enum/const of
 *      non-objects, `false` — is WRAPPED as `{type:"object", properties:{input: original}, required:["input"]}`
 *      and the bridge unwraps `arguments.input` before validating and executing.
 *   The wrapped listing hoists `$defs`/`definitions` to its root so `#/$defs/...` pointers keep resolving.
 * Per consumer (mode): "object-with-unions" is the rule above (grok, Codex, OpenCode, Gemini, the MCP SDK).
 *   "wrap-unions" (Claude: Claude Code and the Anthropic API reject root anyOf/oneOf/allOf even beside
 *   type "object", and drop root if/then/else/not) also wraps an object-shaped root that carries any of those.
 */

/** Which projection rule a consumer needs (see the header). */
export type ProjectionMode = "object-with-unions" | "wrap-unions";

/** Root keywords Claude and the Anthropic API refuse beside `type: "object"`. */
const ROOT_COMBINATORS = ["anyOf", "oneOf", "allOf", "if", "then", "else", "not"] as const;

/** A JSON Schema as a host tool declares it: an object schema, a boolean schema, or anything JSON. */
export type JsonSchema = Record<string, unknown> | boolean;

/** The result of projecting one schema: what MCP lists, and whether arguments arrive under `input`. */
export interface ProjectedSchema {
  listed: Record<string, unknown> & { type: "object" };
  wrapped: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isPlainObjectValue(value: unknown): boolean {
  return isRecord(value);
}

/** Resolves a local JSON pointer ref (`#/$defs/X`, `#/definitions/X`) against the root schema. */
function resolveLocalRef(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (!isRecord(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** True when every value the schema accepts that MCP could send is an object (see decision 1). */
function isObjectShaped(schema: unknown, root: unknown, seen: Set<unknown>): boolean {
  if (schema === true) return true;
  if (!isRecord(schema)) return false;
  if (seen.has(schema)) return false;
  seen.add(schema);
  try {
    const type = schema.type;
    if (typeof type === "string" && type !== "object") return false;
    if (Array.isArray(type) && !type.includes("object")) return false;
    if ("const" in schema && !isPlainObjectValue(schema.const)) return false;
    if (Array.isArray(schema.enum) && !schema.enum.some(isPlainObjectValue)) return false;
    if (typeof schema.$ref === "string") {
      const target = resolveLocalRef(root, schema.$ref);
      if (target === undefined || !isObjectShaped(target, root, seen)) return false;
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const alternatives = schema[key];
      if (alternatives === undefined) continue;
      if (!Array.isArray(alternatives) || alternatives.length === 0) return false;
      if (!alternatives.every((alt) => isObjectShaped(alt, root, new Set(seen)))) return false;
    }
    if (Array.isArray(schema.allOf)) {
      for (const member of schema.allOf) {
        if (isRecord(member) && typeof member.type === "string" && member.type !== "object") return false;
      }
    }
    return true;
  } finally {
    seen.delete(schema);
  }
}

/**
 * Projects a host tool's original input schema to the MCP-listed schema (root `type:"object"`), wrapping
 * roots that cannot be objects under `input`. The original is never mutated.
 */
export function projectSchema(original: JsonSchema, mode: ProjectionMode = "object-with-unions"): ProjectedSchema {
  const refusedRoot = mode === "wrap-unions" && isRecord(original) && ROOT_COMBINATORS.some((k) => k in original);
  if (isRecord(original) && !refusedRoot && isObjectShaped(original, original, new Set())) {
    // `{}` and keyword-only schemas accept objects too; listing them as type object loses nothing over MCP.
    return { listed: { ...structuredClone(original), type: "object" }, wrapped: false };
  }
  if (original === true) return { listed: { type: "object" }, wrapped: false };
  const input: unknown = isRecord(original) ? structuredClone(original) : original;
  const listed: Record<string, unknown> & { type: "object" } = {
    type: "object",
    properties: { input },
    required: ["input"],
    additionalProperties: false,
  };
  if (isRecord(input)) {
    if (typeof input.$schema === "string") {
      listed.$schema = input.$schema;
      delete input.$schema;
    }
    // Root-relative pointers inside `input` resolve against the wrapper root unless input carries an $id.
    if (typeof input.$id !== "string") {
      if (isRecord(input.$defs)) listed.$defs = input.$defs;
      if (isRecord(input.definitions)) listed.definitions = input.definitions;
    }
  }
  return { listed, wrapped: true };
}
