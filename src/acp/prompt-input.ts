/*
 * Prompt input check: what prompt() accepts, decided before anything is sent.
 * Owns: the shape rules for prompt content and per-turn options, and the ACP_PROMPT_INVALID text.
 * Does not own: whether the agent supports a content kind (runtime/ checks promptCapabilities) or sending.
 * Invariant: pure; never throws, whatever it is given (getters that throw included). A refused input means
 *   nothing is sent and prompt() resolves with this diagnostic instead of rejecting with a TypeError.
 */
import { budgetProblem } from "../metering/index.js"; // budget.ts alone: no SQLite in the turn engine
import type { Diagnostic } from "./events.js";

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function invalid(problem: string): Diagnostic {
  return { code: "ACP_PROMPT_INVALID", message: `prompt() was given ${problem}; nothing was sent.` };
}

function contentProblem(content: unknown): string | undefined {
  if (typeof content === "string") return undefined;
  if (!Array.isArray(content))
    return `${kindOf(content)} as its content (it takes a string or an array of ACP content blocks)`;
  for (let i = 0; i < content.length; i += 1) {
    const block: unknown = content[i];
    if (
      typeof block !== "object" ||
      block === null ||
      Array.isArray(block) ||
      typeof (block as { type?: unknown }).type !== "string"
    ) {
      return `a content block at index ${i} that is not an object with a string "type"`;
    }
  }
  return undefined;
}

function optionsProblem(options: unknown): string | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== "object" || Array.isArray(options))
    return `${kindOf(options)} as its options (it takes an object)`;
  const o = options as Record<string, unknown>;
  if (o.promptId !== undefined && (typeof o.promptId !== "string" || o.promptId.length === 0))
    return "a promptId that is not a non-empty string";
  for (const name of ["turnTimeoutMs", "idleTimeoutMs"]) {
    const ms = o[name];
    if (ms !== undefined && (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0))
      return `a ${name} that is not a finite number of milliseconds >= 0`;
  }
  if (o.budget !== undefined) {
    const problem = budgetProblem(o.budget);
    if (problem) return `an invalid budget: ${problem}`;
  }
  if (o.costOf !== undefined && typeof o.costOf !== "function") return "a costOf that is not a function";
  const signal = o.signal as { aborted?: unknown; addEventListener?: unknown } | undefined | null;
  if (
    signal !== undefined &&
    (typeof signal !== "object" ||
      signal === null ||
      typeof signal.aborted !== "boolean" ||
      typeof signal.addEventListener !== "function")
  ) {
    return "a signal that is not an AbortSignal";
  }
  return undefined;
}

/** The ACP_PROMPT_INVALID diagnostic for a prompt's content and options, or undefined when both are usable. */
export function checkPromptInput(content: unknown, options: unknown): Diagnostic | undefined {
  try {
    const problem = contentProblem(content) ?? optionsProblem(options);
    return problem === undefined ? undefined : invalid(problem);
  } catch {
    return invalid("content or options that could not be read");
  }
}
