import { test } from "node:test";
import assert from "node:assert/strict";
import { SeatError } from "../errors.js";
import {
  REDACTED,
  createStreamMasker,
  isSecretName,
  markSecretNames,
  maskSecretValues,
  redact,
  redactEnv,
  redactText,
  registerSecretValue,
  registerSecrets,
  registerUrlPassword,
  splitSecretEnv,
} from "./redact.js";

const CANARY = "xai-canary-redact-0f3a9c";

test("a registered secret value is masked wherever it appears in text, argv and nested contexts", () => {
  registerSecrets({ XAI_API_KEY: CANARY });
  assert.equal(
    redactText(`tmux new-session -- env -i -- XAI_API_KEY=${CANARY} grok`),
    `tmux new-session -- env -i -- XAI_API_KEY=${REDACTED} grok`,
  );
  const masked = redact({ argv: ["env", `K=${CANARY}`], deep: [{ stderr: `key ${CANARY} rejected` }], n: 3 });
  assert.deepEqual(masked, { argv: ["env", `K=${REDACTED}`], deep: [{ stderr: `key ${REDACTED} rejected` }], n: 3 });
  assert.ok(!JSON.stringify(masked).includes(CANARY));
});

test("a secret NAME masks its value in env maps and records (the seat's own plans), but never in free text", () => {
  assert.deepEqual(redactEnv({ GROK_CODE_XAI_API_KEY: "x", PATH: "/bin" }), {
    GROK_CODE_XAI_API_KEY: REDACTED,
    PATH: "/bin",
  });
  assert.deepEqual(
    redact({
      env: [
        { name: "XAI_API_KEY", value: "short" },
        { name: "PATH", value: "/bin" },
      ],
    }),
    {
      env: [
        { name: "XAI_API_KEY", value: REDACTED },
        { name: "PATH", value: "/bin" },
      ],
    },
  );
  // An assignment in text is text: the value was never given to the seat, so nothing says it is a secret.
  assert.equal(redactText("GROK_API_KEY=never-seen-before-value rest"), "GROK_API_KEY=never-seen-before-value rest");
});

test("names an embedder marks secret are masked and split out like the allow-listed ones", () => {
  assert.equal(isSecretName("MY_VENDOR_TOKEN"), false);
  markSecretNames(["MY_VENDOR_TOKEN"]);
  assert.equal(isSecretName("MY_VENDOR_TOKEN"), true);
  registerSecrets({ MY_VENDOR_TOKEN: "vendor-token-value-77" });
  assert.equal(redactText("got vendor-token-value-77"), `got ${REDACTED}`);
  assert.deepEqual(splitSecretEnv({ MY_VENDOR_TOKEN: "v", XAI_API_KEY: "k", HOME: "/h" }), {
    plain: { HOME: "/h" },
    secret: { MY_VENDOR_TOKEN: "v", XAI_API_KEY: "k" },
  });
});

test("a SeatError built with a secret in its message or context never carries it, in message or toJSON", () => {
  registerSecrets({ XAI_API_KEY: CANARY });
  const error = new SeatError("MUX_COMMAND_FAILED", `tmux failed running XAI_API_KEY=${CANARY}`, {
    context: { command: `env XAI_API_KEY=${CANARY}`, env: { XAI_API_KEY: CANARY } },
  });
  assert.ok(!error.message.includes(CANARY));
  assert.ok(!JSON.stringify(error.toJSON()).includes(CANARY));
  assert.ok(!JSON.stringify(error.context).includes(CANARY));
  assert.equal((error.context.env as Record<string, string>).XAI_API_KEY, REDACTED);
});

test("text is never masked by its shape: keys, tokens and URL passwords the seat does not know stay as written", () => {
  // Model-chosen text a person must judge (an approval's command, an answer) is shown as it is.
  for (const text of [
    "upstream refused: api_key=sk-live-4f9a8b7c6d5e4f3a2b1c",
    "xai-0123456789abcdefghijKLMN rejected",
    "Authorization: Bearer eyJhbGciOi.J9x1.sig",
    `token="$(touch PWNED)"; echo configured`,
    "token=abc password='hunter two' SECRET: s3cr3t",
    '{"client_secret":"abc123","stripe_api_key": "rk_1"}',
    "fetch https://alice:pa55word@example.com/x",
  ]) {
    assert.equal(redactText(text), text);
    assert.deepEqual(maskSecretValues(text), { text, masked: [] });
  }
});

test("a known value is masked wherever it appears, longest first, and maskSecretValues names where it came from", () => {
  registerSecretValue("GROK_SEAT_BOARD_TOKEN", "board-token-canary-0123456789");
  registerSecrets({ OPENAI_API_KEY: "openai-canary-987654", CODEX_API_KEY: "openai-canary-987654" });
  const out = maskSecretValues("board board-token-canary-0123456789 key openai-canary-987654 end");
  assert.equal(out.text, `board ${REDACTED} key ${REDACTED} end`);
  assert.deepEqual(out.masked, ["CODEX_API_KEY", "GROK_SEAT_BOARD_TOKEN", "OPENAI_API_KEY"]);
  assert.equal(redactText(redactText("x openai-canary-987654")), `x ${REDACTED}`, "masking twice changes nothing");
  // A value shorter than MIN_VALUE_LENGTH would mask ordinary words: it is not registered.
  registerSecrets({ OPENAI_API_KEY: "abc" });
  assert.equal(redactText("abc"), "abc");
});

test("a URL's password is registered both as written and decoded, and a text that is no URL registers nothing", () => {
  registerUrlPassword("redis://:p%40ss%2Fw0rd-9@127.0.0.1:6390/0", "GROK_SEAT_REDIS_PASSWORD");
  assert.equal(redactText("redis://:p%40ss%2Fw0rd-9@127.0.0.1:6390/0"), `redis://:${REDACTED}@127.0.0.1:6390/0`);
  assert.deepEqual(maskSecretValues("AUTH p@ss/w0rd-9 failed"), {
    text: `AUTH ${REDACTED} failed`,
    masked: ["GROK_SEAT_REDIS_PASSWORD"],
  });
  registerUrlPassword("not a url :secretish@", "GROK_SEAT_REDIS_PASSWORD");
  registerUrlPassword("redis://127.0.0.1:6390", "GROK_SEAT_REDIS_PASSWORD");
  assert.equal(redactText("not a url :secretish@"), "not a url :secretish@");
});

test("every agent's auth variable and the fleet's Redis password are secret names", () => {
  for (const name of [
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GROK_SEAT_REDIS_PASSWORD",
  ]) {
    assert.equal(isSecretName(name), true, name);
    registerSecrets({ [name]: `value-of-${name}` });
    assert.deepEqual(maskSecretValues(`${name}=value-of-${name}`), { text: `${name}=${REDACTED}`, masked: [name] });
  }
  assert.deepEqual(splitSecretEnv({ ANTHROPIC_API_KEY: "a", HOME: "/h" }).secret, { ANTHROPIC_API_KEY: "a" });
});

test("a shell output grok reports as bytes is masked as the text it holds, and other number arrays stay as they are", () => {
  registerSecrets({ OPENAI_API_KEY: "sk-live-4f9a8b7c6d5e4f3a2b1c" });
  const text = "OPENAI_API_KEY=sk-live-4f9a8b7c6d5e4f3a2b1c\nHOME=/h\n";
  const event = { type: "tool_end", rawOutput: { type: "Bash", output: [...Buffer.from(text)] } };
  const masked = redact(event) as typeof event;
  assert.equal(Buffer.from(masked.rawOutput.output).toString("utf8"), `OPENAI_API_KEY=${REDACTED}\nHOME=/h\n`);
  const plain = [...Buffer.from("just some output\n")];
  assert.deepEqual(redact({ output: plain }), { output: plain });
  assert.deepEqual(redact({ sizes: [1, 2, 3, 300, 5, 6, 7, 8] }), { sizes: [1, 2, 3, 300, 5, 6, 7, 8] });
});

test("a name marked secret later has its values masked from then on", () => {
  registerSecrets({ LATE_VENDOR_KEY_X: "abcdef1-late" });
  assert.equal(
    redactText("LATE_VENDOR_KEY_X=abcdef1-late"),
    "LATE_VENDOR_KEY_X=abcdef1-late",
    "not a secret name yet: its value was not kept",
  );
  markSecretNames(["LATE_VENDOR_KEY_X"]);
  registerSecrets({ LATE_VENDOR_KEY_X: "abcdef1-late" });
  assert.equal(redactText("run LATE_VENDOR_KEY_X=abcdef1-late now"), `run LATE_VENDOR_KEY_X=${REDACTED} now`);
});

test("text that arrives in pieces is masked as if whole: a known value split across chunks never shows, other text is unchanged", () => {
  const key = "stream-canary-3a7f9e1d2c";
  registerSecrets({ ANTHROPIC_API_KEY: key });
  const masker = createStreamMasker();
  const pieces = ["the key is st", "ream-cana", "ry-3a7f9e1d2c, and st", "ill s", "tr"];
  const out = pieces.map((p) => masker.push(p)).join("") + masker.end();
  assert.equal(out, `the key is ${REDACTED}, and still str`);
  // A tail that could begin the key is held only until it cannot; end() gives back whatever is left.
  const plain = createStreamMasker();
  assert.equal(plain.push("nothing here "), "nothing here ");
  assert.equal(plain.push("but stre"), "but ", "held: it could begin the key");
  assert.equal(plain.push("et"), "street", "released: it no longer can");
  assert.equal(plain.push(" stream-c"), " ");
  assert.equal(plain.end(), "stream-c", "the rest comes back at the end, not lost");
});

test("maskSecretValues masks only registered values (longest first), never by shape, and names what it masked", () => {
  registerSecrets({ GEMINI_API_KEY: "msv-gemini-value-1", OPENAI_API_KEY: "msv-gemini-value-1-longer" });
  const out = maskSecretValues(
    `token="$(touch X)"; sk-abcdefghijklmnop1234 msv-gemini-value-1-longer msv-gemini-value-1`,
  );
  assert.equal(out.text, `token="$(touch X)"; sk-abcdefghijklmnop1234 [redacted] [redacted]`);
  assert.deepEqual(out.masked, ["GEMINI_API_KEY", "OPENAI_API_KEY"]);
  assert.deepEqual(maskSecretValues("password=hunter2"), { text: "password=hunter2", masked: [] });
});

test("one store per process: a value or name another copy of grok-seat registers is masked by this one, and the other way round", async () => {
  type RedactModule = typeof import("./redact.js");
  const copy = (await import(new URL("./redact.js?other-copy", import.meta.url).href)) as RedactModule;
  assert.notEqual(copy.redactText, redactText, "a separate module instance");
  const theirs = "webhook-secret-of-the-other-copy-7c1e";
  copy.registerSecretValue("GROK_SEAT_NOTIFY_SECRET_HOOK", theirs);
  assert.equal(redactText(`signed with ${theirs}`), `signed with ${REDACTED}`);
  assert.ok(isSecretName("GROK_SEAT_NOTIFY_SECRET_HOOK"), "the name it marked is secret here too");
  const ours = "board-token-of-this-copy-5d2b9a";
  registerSecretValue("GROK_SEAT_BOARD_TOKEN", ours);
  assert.deepEqual(copy.maskSecretValues(`token ${ours}`), {
    text: `token ${REDACTED}`,
    masked: ["GROK_SEAT_BOARD_TOKEN"],
  });
});
