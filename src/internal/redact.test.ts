import { test } from "node:test";
import assert from "node:assert/strict";
import { SeatError } from "../errors.js";
import { REDACTED, isSecretName, markSecretNames, redact, redactEnv, redactText, registerSecrets, splitSecretEnv } from "./redact.js";

const CANARY = "xai-canary-redact-0f3a9c";

test("a registered secret value is masked wherever it appears in text, argv and nested contexts", () => {
  registerSecrets({ XAI_API_KEY: CANARY });
  assert.equal(redactText(`tmux new-session -- env -i -- XAI_API_KEY=${CANARY} grok`), `tmux new-session -- env -i -- XAI_API_KEY=${REDACTED} grok`);
  const masked = redact({ argv: ["env", `K=${CANARY}`], deep: [{ stderr: `key ${CANARY} rejected` }], n: 3 });
  assert.deepEqual(masked, { argv: ["env", `K=${REDACTED}`], deep: [{ stderr: `key ${REDACTED} rejected` }], n: 3 });
  assert.ok(!JSON.stringify(masked).includes(CANARY));
});

test("a secret name's value is masked even when the value was never registered", () => {
  assert.equal(redactText("GROK_API_KEY=never-seen-before-value rest"), `GROK_API_KEY=${REDACTED} rest`);
  assert.deepEqual(redactEnv({ GROK_CODE_XAI_API_KEY: "x", PATH: "/bin" }), { GROK_CODE_XAI_API_KEY: REDACTED, PATH: "/bin" });
  assert.deepEqual(redact({ env: [{ name: "XAI_API_KEY", value: "short" }, { name: "PATH", value: "/bin" }] }), {
    env: [{ name: "XAI_API_KEY", value: REDACTED }, { name: "PATH", value: "/bin" }],
  });
});

test("names an embedder marks secret are masked and split out like the allow-listed ones", () => {
  assert.equal(isSecretName("MY_VENDOR_TOKEN"), false);
  markSecretNames(["MY_VENDOR_TOKEN"]);
  assert.equal(isSecretName("MY_VENDOR_TOKEN"), true);
  registerSecrets({ MY_VENDOR_TOKEN: "vendor-token-value-77" });
  assert.equal(redactText("got vendor-token-value-77"), `got ${REDACTED}`);
  assert.deepEqual(splitSecretEnv({ MY_VENDOR_TOKEN: "v", XAI_API_KEY: "k", HOME: "/h" }), {
    plain: { HOME: "/h" }, secret: { MY_VENDOR_TOKEN: "v", XAI_API_KEY: "k" },
  });
});

test("a SeatError built with a secret in its message or context never carries it, in message or toJSON", () => {
  registerSecrets({ XAI_API_KEY: CANARY });
  const error = new SeatError("MUX_COMMAND_FAILED", `tmux failed running XAI_API_KEY=${CANARY}`, { context: { command: `env XAI_API_KEY=${CANARY}`, env: { XAI_API_KEY: CANARY } } });
  assert.ok(!error.message.includes(CANARY));
  assert.ok(!JSON.stringify(error.toJSON()).includes(CANARY));
  assert.ok(!JSON.stringify(error.context).includes(CANARY));
  assert.equal((error.context.env as Record<string, string>).XAI_API_KEY, REDACTED);
});
