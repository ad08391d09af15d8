/*
 * Model route: where grok sends its model calls for a session, so the seat can put its metering point there.
 * Owns: reading grok's config.toml just enough to tell the xAI API route (`GROK_XAI_API_BASE_URL`, default
 *   api.x.ai), a BYOK model on plain http (`[model.<id>] base_url = "http://…"`, reachable through `HTTP_PROXY`)
 *   and a BYOK model on https (grok's own route, which the seat cannot read) apart.
 * Does not own: the metering point (usage/), spawning grok (process.ts).
 * Invariant: reads only; grok's calls still reach the upstream it would have used (a missing config.toml is grok's
 *   default, the xAI route); an https BYOK route is left alone and estimated.
 * Spec: docs/spend.md#the-metering-point; shared reference grok-wire.md §2.2.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** grok's public xAI API base when nothing overrides it. */
export const XAI_API_BASE_URL = "https://api.x.ai/v1";

/** Where grok's model calls go. */
export type ModelRoute =
  /** The xAI API route: grok honours `GROK_XAI_API_BASE_URL`, so the seat can put its metering point in front. */
  | { kind: "xai"; upstream: string }
  /**
   * A BYOK `[model.<id>]` whose base_url is plain http (a local model server): grok honours `HTTP_PROXY` for it,
   * so the metering point can be its proxy.
   */
  | { kind: "http"; baseUrl: string }
  /** A route the seat does not redirect (a BYOK `[model.<id>]` with an https base_url). */
  | { kind: "own"; why: string };

/** The `[section]` → key → string value table of a TOML text, for plain `key = "value"` lines only. */
function tomlStrings(text: string): Map<string, Map<string, string>> {
  const sections = new Map<string, Map<string, string>>();
  let current = "";
  sections.set(current, new Map());
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = header[1]!.replace(/"/g, "");
      if (!sections.has(current)) sections.set(current, new Map());
      continue;
    }
    const pair = /^([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')/.exec(line);
    if (pair) sections.get(current)!.set(pair[1]!, pair[2] ?? pair[3] ?? "");
    else {
      const bare = /^([A-Za-z0-9_.-]+)\s*=/.exec(line);
      if (bare) sections.get(current)!.set(bare[1]!, "");
    }
  }
  return sections;
}

/**
 * The route of grok's model calls given its environment (`GROK_HOME`, else `HOME/.grok`) and the `-m` model. The
 * model in use is `model`, else config.toml's `[models] default`; a `[model.<that id>]` table with a `base_url`
 * is its own route, anything else goes to the xAI API (`GROK_XAI_API_BASE_URL`, else api.x.ai).
 */
export function grokModelRoute(
  env: Record<string, string | undefined>,
  model?: string,
  readText: (path: string) => string | undefined = readConfig,
): ModelRoute {
  const grokHome = env.GROK_HOME ?? (env.HOME ? join(env.HOME, ".grok") : undefined);
  const upstream = env.GROK_XAI_API_BASE_URL || XAI_API_BASE_URL;
  if (!/^https?:\/\//.test(upstream)) return { kind: "own", why: `GROK_XAI_API_BASE_URL is not an http(s) URL` };
  if (grokHome === undefined) return { kind: "xai", upstream };
  const text = readText(join(grokHome, "config.toml"));
  if (text === undefined) return { kind: "xai", upstream };
  const sections = tomlStrings(text);
  const id = model ?? sections.get("models")?.get("default");
  const baseUrl = id === undefined ? undefined : sections.get(`model.${id}`)?.get("base_url");
  if (baseUrl !== undefined) {
    if (/^http:\/\//i.test(baseUrl)) return { kind: "http", baseUrl };
    return { kind: "own", why: `model "${id}" has its own https base_url in config.toml` };
  }
  return { kind: "xai", upstream };
}

function readConfig(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
