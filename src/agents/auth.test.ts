/*
 * Auth choice: which advertised method a headless session authenticates with.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseAuthMethod } from "./auth.js";

const m = (...ids: string[]) => ids.map((id) => ({ id }));

test("prefers xai.api_key when XAI_API_KEY or GROK_API_KEY is set and grok advertises it", () => {
  assert.equal(
    chooseAuthMethod(m("xai.api_key", "cached_token"), "cached_token", { XAI_API_KEY: "k" }).methodId,
    "xai.api_key",
  );
  assert.equal(chooseAuthMethod(m("xai.api_key", "grok.com"), null, { GROK_API_KEY: "k" }).methodId, "xai.api_key");
});

test("falls back to cached_token when advertised and no key is set", () => {
  assert.equal(chooseAuthMethod(m("xai.api_key", "cached_token"), "xai.api_key", {}).methodId, "cached_token");
});

test("uses grok's default when it is a headless method (a BYOK key in config.toml)", () => {
  assert.equal(chooseAuthMethod(m("xai.api_key", "grok.com"), "xai.api_key", {}).methodId, "xai.api_key");
});

test("never chooses an interactive or unadvertised method; says how to log in instead", () => {
  const none = chooseAuthMethod(m("grok.com"), null, { XAI_API_KEY: "k" });
  assert.equal(none.methodId, undefined);
  assert.match(none.why, /grok login.*XAI_API_KEY/);
  assert.equal(chooseAuthMethod(m("grok.com", "oidc"), "grok.com", {}).methodId, undefined);
  assert.equal(
    chooseAuthMethod([], "xai.api_key", {}).methodId,
    undefined,
    "a default that is not advertised is not used",
  );
});
