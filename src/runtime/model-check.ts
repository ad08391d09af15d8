/*
 * Model check: refuses a requested model that the agent's own catalogue does not list, before any turn.
 * Owns: reading the catalogue grok returns with session/new (and session/load) — `models.availableModels` — and
 *   the MODEL_UNKNOWN error listing the ids it offers.
 * Does not own: choosing the model (the caller) or passing it to grok (`-m`, grok/launch.ts).
 * Invariant: only grok's answer is checked (other agents take provider models their catalogue may not list);
 *   no catalogue in the answer means no check (never a refusal on missing evidence).
 * Why: grok 1.0.41 started with `-m <unknown id>` silently falls back to its default model and retries against
 *   it until the idle timeout; its session/new answer then shows another currentModelId.
 */
import { SeatError } from "../errors.js";

/** The model ids of a session/new (or load) answer's `models.availableModels`, or undefined when absent. */
export function catalogueModelIds(answer: unknown): string[] | undefined {
  const models = answer && typeof answer === "object" ? (answer as { models?: unknown }).models : undefined;
  const available =
    models && typeof models === "object" ? (models as { availableModels?: unknown }).availableModels : undefined;
  if (!Array.isArray(available)) return undefined;
  return available.flatMap((m) =>
    m && typeof m === "object" && typeof (m as { modelId?: unknown }).modelId === "string"
      ? [(m as { modelId: string }).modelId]
      : [],
  );
}

/** MODEL_UNKNOWN when `model` was requested and the catalogue in `answer` does not list it; else undefined. */
export function unknownModelError(model: string | undefined, answer: unknown, agent = "grok"): SeatError | undefined {
  if (model === undefined) return undefined;
  const ids = catalogueModelIds(answer);
  if (ids === undefined || ids.length === 0 || ids.includes(model)) return undefined;
  return new SeatError(
    "MODEL_UNKNOWN",
    `Model ${JSON.stringify(model)} is not one ${agent} offers; available: ${ids.join(", ")}. Pick one of those (\`seat models\` lists them as grok-cli/<id>); nothing was sent.`,
    { context: { agent, model, availableModels: ids } },
  );
}
