/*
 * Seat readiness: what must hold of the native session before the first brief.
 * Owns: the catalog rule (an enabled direct mcp.linear.app endpoint refuses) and the model/effort
 *   rule (the selection exists in grok's native options and echoes after selection).
 * Does not own: asking grok (visible-seat.ts sends the requests) or permission policy (leader mode
 *   ignores CLI allow/deny rules, so the seat advertises none and leaves prompts to the TUI owner).
 * Invariant: pure functions; an unknown option never falls back silently (SEAT_REFUSED).
 * Spec: ADR 0224 ("Check enabled native catalog tools before accepting readiness ..."); docs/seat-protocol.md#readiness
 */
import { SeatError } from "../errors.js";

/** The host of the direct Linear MCP endpoint that refuses readiness when enabled. */
export const LINEAR_MCP_HOST = "mcp.linear.app";

/** The owner's step named in the refusal. */
export const LINEAR_DISABLE_STEP =
  "Disable the mcp.linear.app MCP server in grok's own configuration (remove or disable it in $GROK_HOME config / `grok mcp`), then release this seat and hire a fresh one";

function hostsIn(value: unknown, out: string[], depth = 0): void {
  if (depth > 6 || value === null || value === undefined) return;
  if (typeof value === "string") {
    const m = /^[a-z][a-z0-9+.-]*:\/\/([^/:?#]+)/i.exec(value.trim());
    if (m) out.push(m[1]!.toLowerCase());
    return;
  }
  if (Array.isArray(value)) return value.forEach((v) => hostsIn(v, out, depth + 1));
  if (typeof value === "object")
    for (const v of Object.values(value as Record<string, unknown>)) hostsIn(v, out, depth + 1);
}

function isDisabled(entry: Record<string, unknown>): boolean {
  const status = typeof entry.status === "string" ? entry.status.toLowerCase() : "";
  return entry.enabled === false || entry.disabled === true || status === "disabled";
}

/**
 * Names the enabled catalog entries (MCP server entries from initialize / servers_updated, or tool
 * entries with `_meta`) that point directly at mcp.linear.app.
 */
export function findLinearEndpoints(entries: unknown[]): string[] {
  const found: string[] = [];
  for (const entry of entries) {
    if (typeof entry !== "object" || entry === null) continue;
    const record = entry as Record<string, unknown>;
    if (isDisabled(record)) continue;
    const hosts: string[] = [];
    hostsIn(record, hosts);
    if (hosts.some((h) => h === LINEAR_MCP_HOST || h.endsWith(`.${LINEAR_MCP_HOST}`))) {
      found.push(String(record.name ?? record.id ?? record.serverName ?? JSON.stringify(record).slice(0, 80)));
    }
  }
  return found;
}

/** Throws SEAT_REFUSED naming the owner's disable-and-start-fresh step when an enabled direct mcp.linear.app endpoint is listed. */
export function assertCatalogReady(entries: unknown[], context: Record<string, unknown> = {}): void {
  const linear = findLinearEndpoints(entries);
  if (linear.length === 0) return;
  throw new SeatError(
    "SEAT_REFUSED",
    `grok's native catalog has an enabled direct ${LINEAR_MCP_HOST} endpoint (${linear.join(", ")}); the seat refuses before any brief. ${LINEAR_DISABLE_STEP}.`,
    { context: { ...context, endpoints: linear, ownerStep: LINEAR_DISABLE_STEP } },
  );
}

/** One select option of grok's native session configOptions. */
export interface ConfigOption {
  id: string;
  category?: string;
  currentValue?: unknown;
  options?: Array<{ value: string; name?: string }>;
}

/** Reads `configOptions` from a session/load, resume or set_config_option result. */
export function configOptionsOf(result: unknown): ConfigOption[] {
  const list = (result as { configOptions?: unknown } | null)?.configOptions;
  return Array.isArray(list)
    ? (list.filter(
        (o) => typeof o === "object" && o !== null && typeof (o as ConfigOption).id === "string",
      ) as ConfigOption[])
    : [];
}

/** The config option that selects the model or the reasoning effort. */
export function findConfigOption(options: ConfigOption[], kind: "model" | "effort"): ConfigOption | undefined {
  if (kind === "model") return options.find((o) => o.id === "model" || o.category === "model");
  return options.find((o) => o.id === "reasoning_effort" || o.category === "thought_level" || o.id === "thought_level");
}

/** Model ids grok lists natively: configOptions values plus `models.availableModels`. */
export function nativeModelIds(result: unknown): string[] {
  const ids = new Set<string>();
  for (const o of findConfigOption(configOptionsOf(result), "model")?.options ?? []) ids.add(o.value);
  const available = (result as { models?: { availableModels?: unknown } } | null)?.models?.availableModels;
  if (Array.isArray(available))
    for (const m of available)
      if (typeof (m as { modelId?: unknown })?.modelId === "string") ids.add((m as { modelId: string }).modelId);
  return [...ids];
}

/**
 * Checks that `value` is one of grok's native options for `kind`; throws SEAT_REFUSED listing what
 * exists otherwise. Returns the option's config id.
 */
export function assertNativeOption(result: unknown, kind: "model" | "effort", value: string): string {
  const option = findConfigOption(configOptionsOf(result), kind);
  const values = kind === "model" ? nativeModelIds(result) : (option?.options ?? []).map((o) => o.value);
  if (!option || !values.includes(value)) {
    throw new SeatError(
      "SEAT_REFUSED",
      `The ${kind} "${value}" is not among grok's native options for this session (${values.length ? values.join(", ") : "none offered"}); the seat does not fall back to another. Choose one of those and hire again.`,
      { context: { kind, requested: value, available: values } },
    );
  }
  return option.id;
}

/** Throws SEAT_REFUSED unless the set_config_option result echoes `value` as the current value. */
export function assertSelectionEcho(result: unknown, kind: "model" | "effort", value: string): void {
  const option = findConfigOption(configOptionsOf(result), kind);
  if (option?.currentValue !== value) {
    throw new SeatError(
      "SEAT_REFUSED",
      `grok did not echo the selected ${kind} "${value}" (it reports ${JSON.stringify(option?.currentValue ?? null)}); the seat refuses rather than run on another ${kind}. Release it and hire again.`,
      { context: { kind, requested: value, echoed: option?.currentValue ?? null } },
    );
  }
}
