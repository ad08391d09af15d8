/*
 * Argument validation: checks each tool call against the tool's ORIGINAL input schema.
 * Owns: compiling schemas with Ajv (JSON Schema 2020-12, formats, allErrors) and phrasing refusals.
 * Does not own: the listed schema (projection.ts) or running the tool (registry.ts).
 * Invariant: one process-wide Ajv instance (its meta-schema compile costs ~100 ms, so it is paid once);
 *   each schema is removed from Ajv's registry right after compiling, so `$id`s of different tools never
 *   collide and sessions do not accumulate schemas. Draft-07 schemas (what zod-to-json-schema emits)
 *   compile too; that meta-schema is added on first use. A refusal names every failing instancePath.
 */
import { createRequire } from "node:module";
import type { Ajv2020 } from "ajv/dist/2020.js";
import type addFormatsModule from "ajv-formats";
import type { ErrorObject, ValidateFunction } from "ajv";
import { SeatError, messageOf } from "../errors.js";
import type { JsonSchema } from "./projection.js";

// Ajv (CommonJS) is required on the first compile, not at import: `import "grok-seat"` stays light and
// compileArgumentValidator stays synchronous.
const require = createRequire(import.meta.url);

/** At most this many distinct failures are quoted in one refusal message. */
const MAX_QUOTED_ERRORS = 8;

/** One failing location of a refused argument set. */
export interface ArgumentIssue {
  path: string;
  message: string;
}

/** The outcome of validating one argument set. */
export type ValidationResult = { ok: true } | { ok: false; issues: ArgumentIssue[] };

/** A compiled validator for one tool's original schema. */
export type ArgumentValidator = (value: unknown) => ValidationResult;

let ajvInstance: Ajv2020 | undefined;
let hasDraft07 = false;

function sharedAjv(schema: JsonSchema): Ajv2020 {
  ajvInstance ??= (() => {
    const { Ajv2020: Ajv } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
    const addFormats = (require("ajv-formats") as typeof addFormatsModule).default;
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
    addFormats(ajv);
    return ajv;
  })();
  const declared = typeof schema === "object" ? schema.$schema : undefined;
  if (!hasDraft07 && typeof declared === "string" && declared.includes("draft-07")) {
    ajvInstance.addMetaSchema(require("ajv/dist/refs/json-schema-draft-07.json") as Record<string, unknown>);
    hasDraft07 = true;
  }
  return ajvInstance;
}

/** Drops a schema (and any `$id` it registered) from Ajv's registry; the compiled function keeps working. */
function forget(ajv: Ajv2020, schema: JsonSchema): void {
  try {
    ajv.removeSchema(schema as object);
  } catch {
    // Nothing registered under it.
  }
}

function issueOf(error: ErrorObject, pathPrefix: string): ArgumentIssue {
  let message = error.message ?? "is invalid";
  if (error.keyword === "additionalProperties") {
    message = `must NOT have additional property '${String(error.params.additionalProperty)}'`;
  } else if (error.keyword === "enum") {
    message = `must be one of ${JSON.stringify(error.params.allowedValues)}`;
  }
  return { path: `${pathPrefix}${error.instancePath}` || "/", message };
}

/**
 * Compiles `schema` (the tool's original schema) into a validator; issue paths get `pathPrefix`
 * (e.g. "/input" for wrapped tools). Throws TOOL_SCHEMA_INVALID when the schema does not compile.
 */
export function compileValidator(toolName: string, schema: JsonSchema, pathPrefix = ""): ArgumentValidator {
  const ajv = sharedAjv(schema);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    forget(ajv, schema);
    throw new SeatError(
      "TOOL_SCHEMA_INVALID",
      `Host tool "${toolName}" has an input schema that does not compile: ${messageOf(error)}. ` +
        "Fix the schema (JSON Schema 2020-12 or draft-07) before registering the tool.",
      { context: { toolName }, cause: error },
    );
  }
  forget(ajv, schema);
  return (value) => {
    if (validate(value)) return { ok: true };
    const seen = new Set<string>();
    const issues: ArgumentIssue[] = [];
    for (const error of validate.errors ?? []) {
      const issue = issueOf(error, pathPrefix);
      const key = `${issue.path} ${issue.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      issues.push(issue);
    }
    return { ok: false, issues };
  };
}

/** Phrases a refusal: which tool, each failing path and why, and that the tool did not run. */
export function describeIssues(toolName: string, issues: ArgumentIssue[]): string {
  const quoted = issues.slice(0, MAX_QUOTED_ERRORS).map((i) => `${i.path} ${i.message}`);
  const more = issues.length > MAX_QUOTED_ERRORS ? ` (and ${issues.length - MAX_QUOTED_ERRORS} more)` : "";
  return (
    `Invalid arguments for tool "${toolName}": ${quoted.join("; ")}${more}. ` +
    "The tool was not run; fix the arguments to match its input schema and call it again."
  );
}
