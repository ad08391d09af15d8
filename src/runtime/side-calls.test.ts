import { test } from "node:test";
import assert from "node:assert/strict";
import { withoutProxyInShells } from "./side-calls.js";

test("the GROK_CONFIG overlay gains HTTP_PROXY and http_proxy in shell_environment_policy.exclude, keeping what was there", () => {
  assert.deepEqual(JSON.parse(withoutProxyInShells(undefined)!), {
    shell_environment_policy: { exclude: ["HTTP_PROXY", "http_proxy"] },
  });
  const given = JSON.stringify({
    features: { telemetry: false },
    shell_environment_policy: { ignore_default_excludes: true, exclude: ["MINE", "HTTP_PROXY"] },
  });
  assert.deepEqual(JSON.parse(withoutProxyInShells(given)!), {
    features: { telemetry: false },
    shell_environment_policy: { ignore_default_excludes: true, exclude: ["MINE", "HTTP_PROXY", "http_proxy"] },
  });
  for (const bad of [
    "not json",
    "[1]",
    "5",
    '{"shell_environment_policy":3}',
    '{"shell_environment_policy":{"exclude":"HTTP_PROXY"}}',
  ]) {
    assert.equal(withoutProxyInShells(bad), undefined, bad);
  }
});
