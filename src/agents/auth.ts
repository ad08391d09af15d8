/*
 * Auth choice: which ACP auth method a headless session uses, decided from what grok advertised.
 * Owns: the preference order and the "not authenticated" diagnostic text.
 * Does not own: sending `authenticate` (runtime/handshake.ts). Grok owns the credentials themselves.
 * Invariant: only a method grok advertised is ever chosen; interactive methods (grok.com, oidc) never are.
 * Decision: `xai.api_key` when XAI_API_KEY/GROK_API_KEY is set and advertised; else `cached_token` when
 *   advertised; else grok's own `defaultAuthMethodId` when it is one of those two (a BYOK `api_key` in
 *   config.toml makes grok advertise and default to `xai.api_key` without any env key).
 * Spec: seed 002 "ACP session lifecycle" step 2 and "Auth"; grok-wire.md §5.2.
 */

/** The subset of an auth method we read. */
export interface AdvertisedAuthMethod {
  id: string;
}

/**
 * The method to authenticate with; `undefined` when none is usable (not authenticated); `null` when the agent
 * needs no `authenticate` call at all (its own config or login provides credentials; non-grok agents only).
 */
export type AuthChoice =
  | { methodId: string; why: string }
  | { methodId: undefined; why: string }
  | { methodId: null; why: string };

const HEADLESS_METHODS = new Set(["xai.api_key", "cached_token"]);

/** Chooses the auth method for a headless session. */
export function chooseAuthMethod(
  advertised: readonly AdvertisedAuthMethod[],
  defaultAuthMethodId: unknown,
  env: NodeJS.ProcessEnv,
): AuthChoice {
  const ids = new Set(advertised.map((m) => m.id));
  const hasKey = Boolean(env.XAI_API_KEY || env.GROK_API_KEY);
  if (hasKey && ids.has("xai.api_key")) return { methodId: "xai.api_key", why: "XAI_API_KEY/GROK_API_KEY is set" };
  if (ids.has("cached_token")) return { methodId: "cached_token", why: "a cached grok login exists" };
  if (
    typeof defaultAuthMethodId === "string" &&
    HEADLESS_METHODS.has(defaultAuthMethodId) &&
    ids.has(defaultAuthMethodId)
  ) {
    return { methodId: defaultAuthMethodId, why: "grok's default method (a key in config.toml)" };
  }
  const offered = [...ids].join(", ") || "none";
  return {
    methodId: undefined,
    why: `not authenticated: run \`grok login\` or set XAI_API_KEY (grok offered: ${offered})`,
  };
}
