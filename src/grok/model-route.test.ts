import { test } from "node:test";
import assert from "node:assert/strict";
import { grokModelRoute, XAI_API_BASE_URL } from "./model-route.js";
import { sandboxConfigToml } from "../sandbox/index.js";

const files = (text: string | undefined) => () => text;

test("grok's model route: the xAI API unless the model in use is a BYOK entry with a base_url (plain http can be proxied, https cannot)", () => {
  const env = { HOME: "/h" };
  assert.deepEqual(
    grokModelRoute(env, undefined, files(undefined)),
    { kind: "xai", upstream: XAI_API_BASE_URL },
    "no config.toml: grok's default",
  );
  assert.deepEqual(
    grokModelRoute({ ...env, GROK_XAI_API_BASE_URL: "https://proxy.example/v1" }, undefined, files("")),
    { kind: "xai", upstream: "https://proxy.example/v1" },
  );
  assert.equal(grokModelRoute({ ...env, GROK_XAI_API_BASE_URL: "ftp://x" }, undefined, files("")).kind, "own");
  const byok = sandboxConfigToml("http://127.0.0.1:9/v1");
  assert.deepEqual(
    grokModelRoute(env, undefined, files(byok)),
    { kind: "http", baseUrl: "http://127.0.0.1:9/v1" },
    "[models] default names the BYOK entry",
  );
  assert.deepEqual(grokModelRoute(env, "mock", files(byok)), { kind: "http", baseUrl: "http://127.0.0.1:9/v1" });
  assert.equal(
    grokModelRoute(env, "grok-4.6", files(byok)).kind,
    "xai",
    "-m a model that is not a config entry goes to the xAI API",
  );
  assert.equal(
    grokModelRoute(env, undefined, files(sandboxConfigToml("https://models.example/v1"))).kind,
    "own",
    "an https BYOK route is left alone",
  );
  assert.equal(
    grokModelRoute(env, undefined, files('[models]\ndefault = "m"\n[model.m]\nmodel = "x"\n')).kind,
    "xai",
    "an entry without base_url uses the xAI API",
  );
  let read = "";
  grokModelRoute({ GROK_HOME: "/g", HOME: "/h" }, undefined, (path) => void (read = path));
  assert.equal(read, "/g/config.toml", "GROK_HOME wins over HOME/.grok");
});
