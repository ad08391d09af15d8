import { test } from "node:test";
import assert from "node:assert/strict";
import { SeatError } from "../errors.js";
import { REDACTED, isSecretName, markSecretNames, redact, redactEnv, redactText, registerSecrets, splitSecretEnv, maskSecretValues } from "./redact.js";

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

test("well-known credential shapes are masked though nobody registered them, keeping the name, scheme and user", () => {
  const key = "sk-live-4f9a8b7c6d5e4f3a2b1c";
  assert.equal(redactText(`upstream refused: api_key=${key}`), `upstream refused: api_key=${REDACTED}`);
  assert.equal(redactText(`auth with ${key} failed`), `auth with ${REDACTED} failed`);
  assert.equal(redactText("xai-0123456789abcdefghijKLMN rejected"), `${REDACTED} rejected`);
  assert.equal(redactText("Authorization: Bearer eyJhbGciOi.J9x1.sig"), `Authorization: Bearer ${REDACTED}`);
  assert.equal(redactText("token=abc password='hunter two' SECRET: s3cr3t"), `token=${REDACTED} password='${REDACTED}' SECRET: ${REDACTED}`);
  assert.equal(redactText('{"client_secret":"abc123","stripe_api_key": "rk_1"}'), `{"client_secret":"${REDACTED}","stripe_api_key": "${REDACTED}"}`);
  assert.equal(redactText("MY_SERVICE_TOKEN=zzz9 GROK_SEAT_REDIS_PASSWORD=pw"), `MY_SERVICE_TOKEN=${REDACTED} GROK_SEAT_REDIS_PASSWORD=${REDACTED}`);
  assert.equal(redactText("fetch https://alice:pa55word@example.com/x and redis://:pw@127.0.0.1:6379/0"), `fetch https://alice:${REDACTED}@example.com/x and redis://:${REDACTED}@127.0.0.1:6379/0`);
  assert.deepEqual(redact({ message: `api_key=${key}`, nested: [{ url: "https://u:p9@h" }] }), { message: `api_key=${REDACTED}`, nested: [{ url: `https://u:${REDACTED}@h` }] });
  assert.equal(redactText(redactText(`api_key=${key}`)), `api_key=${REDACTED}`, "masking twice changes nothing");
});

test("ordinary text that only looks close to a credential stays as it is", () => {
  for (const text of [
    "max_tokens=100 prompt_tokens: 5 inputTokens:3",
    "the bearer responsibility",
    "@xai-official/grok-linux-x64 and xai-grok-workspace",
    "sk-learn 0.24",
    "see https://example.com:8080/path",
    "tokens are counted; the secret is patience",
  ]) assert.equal(redactText(text), text);
});

test("every agent's auth variable and the fleet's Redis password are secret names", () => {
  for (const name of ["OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GROK_SEAT_REDIS_PASSWORD"]) {
    assert.equal(isSecretName(name), true, name);
    assert.equal(redactText(`${name}=v`), `${name}=${REDACTED}`);
  }
  assert.deepEqual(splitSecretEnv({ ANTHROPIC_API_KEY: "a", HOME: "/h" }).secret, { ANTHROPIC_API_KEY: "a" });
});

test("a shell output grok reports as bytes is masked as the text it holds, and other number arrays stay as they are", () => {
  const text = "OPENAI_API_KEY=sk-live-4f9a8b7c6d5e4f3a2b1c\nHOME=/h\n";
  const event = { type: "tool_end", rawOutput: { type: "Bash", output: [...Buffer.from(text)] } };
  const masked = redact(event) as typeof event;
  assert.equal(Buffer.from(masked.rawOutput.output).toString("utf8"), `OPENAI_API_KEY=${REDACTED}\nHOME=/h\n`);
  const plain = [...Buffer.from("just some output\n")];
  assert.deepEqual(redact({ output: plain }), { output: plain });
  assert.deepEqual(redact({ sizes: [1, 2, 3, 300, 5, 6, 7, 8] }), { sizes: [1, 2, 3, 300, 5, 6, 7, 8] });
});

test("a name marked secret after text was already redacted is masked in NAME=value from then on (the compiled pattern follows the names)", () => {
  assert.equal(redactText("LATE_VENDOR_KEY_X=abcdef1"), "LATE_VENDOR_KEY_X=abcdef1", "not a secret name yet, not a credential shape");
  markSecretNames(["LATE_VENDOR_KEY_X"]);
  assert.equal(redactText("LATE_VENDOR_KEY_X=abcdef1"), `LATE_VENDOR_KEY_X=${REDACTED}`);
  markSecretNames(["LATE_VENDOR_KEY_X"]); // marking again changes nothing
  assert.equal(redactText("run LATE_VENDOR_KEY_X=abcdef1 now"), `run LATE_VENDOR_KEY_X=${REDACTED} now`);
});

test("maskSecretValues masks only registered values (longest first), never by shape, and names what it masked", () => {
  registerSecrets({ GEMINI_API_KEY: "msv-gemini-value-1", OPENAI_API_KEY: "msv-gemini-value-1-longer" });
  const out = maskSecretValues(`token="$(touch X)"; sk-abcdefghijklmnop1234 msv-gemini-value-1-longer msv-gemini-value-1`);
  assert.equal(out.text, `token="$(touch X)"; sk-abcdefghijklmnop1234 [redacted] [redacted]`);
  assert.deepEqual(out.masked, ["GEMINI_API_KEY", "OPENAI_API_KEY"]);
  assert.deepEqual(maskSecretValues("password=hunter2"), { text: "password=hunter2", masked: [] });
});
