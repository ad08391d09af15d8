/*
 * Grok models: parse `grok models`, list models, and normalise model selections and lane markers.
 * Owns: the plain-text `grok models` format, the `grok-cli/<id>` provider naming, and `grok/<model>` lane markers.
 * Does not own: choosing a model for a session (runtime/) or ACP `availableModels` (acp/).
 * Invariant: parsing is conservative and never throws; unknown shapes yield an empty list and a reason.
 */
import { SeatError } from "../errors.js";
import { runGrokCommand } from "./grok-command.js";

/** How grok says it is authenticated, from the first line of `grok models`. */
export type GrokAuth = "api-key" | "model-key" | "logged-in" | "not-authenticated" | "unknown";

/** One model id from the `Available models:` list. */
export interface GrokModelEntry {
  id: string;
  isDefault: boolean;
}

/** The parsed output of `grok models`; `reason` explains an empty or partial parse. */
export interface GrokModels {
  auth: GrokAuth;
  authLine?: string;
  defaultModel?: string;
  models: GrokModelEntry[];
  reason?: string;
}

/** The provider name under which grok's model ids are exposed to an orchestrator. */
export const GROK_PROVIDER = "grok-cli";

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;

function classifyAuth(line: string): GrokAuth | undefined {
  if (/^You are using [A-Z0-9_]*API_KEY\b/.test(line)) return "api-key";
  if (/^Model '.*' is using its own API key\.?$/.test(line)) return "model-key";
  if (/^You are logged in with\b/.test(line)) return "logged-in";
  if (/^You are not authenticated\b/.test(line)) return "not-authenticated";
  return undefined;
}

/** Parses `grok models` stdout into auth state, default model and model ids; never throws. */
export function parseGrokModels(stdout: string): GrokModels {
  const result: GrokModels = { auth: "unknown", models: [] };
  if (typeof stdout !== "string") return { ...result, reason: "output was not text" };
  const lines = stdout.split(/\r?\n/).map((l) => l.trimEnd());
  let inList = false;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "") continue;
    const auth = classifyAuth(line);
    if (auth && result.authLine === undefined) {
      result.auth = auth;
      result.authLine = line;
      continue;
    }
    const def = /^Default model:\s*(\S+)$/.exec(line);
    if (def && MODEL_ID.test(def[1]!)) {
      result.defaultModel = def[1]!;
      inList = false;
      continue;
    }
    if (/^Available models:$/.test(line)) {
      inList = true;
      continue;
    }
    const bullet = /^([*-])\s+(\S+)(\s+\(default\))?$/.exec(line);
    if (inList && bullet && MODEL_ID.test(bullet[2]!)) {
      const id = bullet[2]!;
      if (!result.models.some((m) => m.id === id)) {
        result.models.push({ id, isDefault: bullet[1] === "*" || bullet[3] !== undefined });
      }
      continue;
    }
    // Anything else ends the list: we only trust bullets directly under the header.
    inList = false;
  }
  if (result.defaultModel === undefined) {
    const marked = result.models.find((m) => m.isDefault);
    if (marked) result.defaultModel = marked.id;
  } else {
    for (const m of result.models) if (m.id === result.defaultModel) m.isDefault = true;
  }
  if (result.models.length === 0) result.reason = "no `Available models:` list with bullet entries was found";
  else if (result.auth === "unknown") result.reason = "no recognised authentication line was found";
  return result;
}

/** Prefixes model ids with the `grok-cli/` provider, e.g. `grok-4.5` → `grok-cli/grok-4.5`. */
export function toProviderModelIds(models: readonly GrokModelEntry[] | readonly string[]): string[] {
  return models.map((m) => `${GROK_PROVIDER}/${typeof m === "string" ? m : m.id}`);
}

/** Turns `grok-cli/<id>` or `grok/<id>` into `<id>`; `grok/default`, empty or undefined mean "omit -m" (undefined). */
export function normalizeModelSelection(selection: string | undefined | null): string | undefined {
  if (typeof selection !== "string") return undefined;
  let id = selection.trim();
  for (const prefix of [`${GROK_PROVIDER}/`, "grok/"]) {
    if (id.startsWith(prefix)) {
      id = id.slice(prefix.length);
      break;
    }
  }
  if (id === "" || id === "default") return undefined;
  return id;
}

/** The lane marker for a model: `grok/<model>`, or `grok/default` when no model is selected; never `undefined/undefined`. */
export function laneMarker(model: string | undefined | null): string {
  const id = normalizeModelSelection(model ?? undefined);
  return `grok/${id ?? "default"}`;
}

/** Options for listGrokModels; `timeoutMs` defaults to 20 s. */
export interface ListGrokModelsOptions {
  binary: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs `grok models` and parses it, adding `providerModelIds`; rejects with GROK_PROBE_FAILED only when it cannot run. */
export async function listGrokModels(
  options: ListGrokModelsOptions,
): Promise<GrokModels & { providerModelIds: string[] }> {
  const result = await runGrokCommand({
    binary: options.binary,
    args: ["--no-auto-update", "models"],
    env: options.env,
    timeoutMs: options.timeoutMs ?? 20_000,
  });
  if (result.error) throw result.error;
  const parsed = parseGrokModels(result.stdout);
  if (result.exitCode !== 0 && parsed.models.length === 0) {
    throw new SeatError(
      "GROK_PROBE_FAILED",
      `\`${result.command.join(" ")}\` exited ${result.exitCode ?? result.signal} without a model list (${parsed.reason ?? "unparsable"}). Run it by hand with the same HOME/GROK_HOME to see why.`,
      {
        context: {
          command: result.command,
          exitCode: result.exitCode,
          signal: result.signal,
          stderrTail: result.stderr.slice(-4096),
        },
      },
    );
  }
  return { ...parsed, providerModelIds: toProviderModelIds(parsed.models) };
}
