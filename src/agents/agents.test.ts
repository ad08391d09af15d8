import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { AGENT_NAMES, agentProfile, buildProfileEnv, customProfile } from "./index.js";
import { splitCommandLine } from "../command-line/index.js";

test("splits an agent command line like a shell would quote it, without expanding anything", () => {
  assert.deepEqual(splitCommandLine(`node "my agent.js" --flag='a b' \\$HOME *.ts "say \\"hi\\""`), [
    "node",
    "my agent.js",
    "--flag=a b",
    "$HOME",
    "*.ts",
    'say "hi"',
  ]);
  assert.deepEqual(splitCommandLine("  a   b  "), ["a", "b"]);
  assert.deepEqual(splitCommandLine(`x '' ""`), ["x", "", ""]);
});

test("an unclosed quote, a lone trailing backslash or an empty command is AGENT_COMMAND_INVALID", () => {
  for (const bad of [`node "x`, "node 'x", "node \\", "   "]) {
    assert.throws(
      () => splitCommandLine(bad),
      (e: unknown) => isSeatError(e, "AGENT_COMMAND_INVALID"),
      bad,
    );
  }
});

test("an unknown agent name is AGENT_NOT_FOUND naming the known ones", () => {
  assert.throws(
    () => agentProfile("nope"),
    (e: unknown) => isSeatError(e, "AGENT_NOT_FOUND") && e.message.includes(AGENT_NAMES.join(", ")),
  );
});

test("each agent's env takes only its allow-listed variables; another agent's key never passes", () => {
  const source = {
    HOME: "/h",
    PATH: "/bin",
    XAI_API_KEY: "xai-secret",
    ANTHROPIC_API_KEY: "ant-secret",
    OPENAI_API_KEY: "oai-secret",
    RANDOM_SECRET: "r",
    LC_ALL: "C",
  };
  const claude = buildProfileEnv(agentProfile("claude"), source);
  assert.equal(claude.ANTHROPIC_API_KEY, "ant-secret");
  assert.equal(claude.XAI_API_KEY, undefined);
  assert.equal(claude.OPENAI_API_KEY, undefined);
  assert.equal(claude.RANDOM_SECRET, undefined);
  assert.equal(claude.DISABLE_TELEMETRY, "1");
  const codex = buildProfileEnv(agentProfile("codex"), source, { INITIAL_AGENT_MODE: "read-only" });
  assert.equal(codex.OPENAI_API_KEY, "oai-secret");
  assert.equal(codex.ANTHROPIC_API_KEY, undefined);
  assert.equal(codex.XAI_API_KEY, undefined);
  assert.equal(codex.INITIAL_AGENT_MODE, "read-only", "the embedder's explicit agentEnv is taken verbatim");
  assert.equal(codex.NO_BROWSER, "1");
  assert.equal(codex.LC_ALL, "C");
});

test("a custom agent gets the base env only, no authenticate call, and its argv exactly as parsed", () => {
  const profile = customProfile(`/opt/agent --acp "two words"`);
  assert.deepEqual(profile.launchArgv({ installRoot: "/unused" }), ["/opt/agent", "--acp", "two words"]);
  assert.deepEqual(buildProfileEnv(profile, { HOME: "/h", XAI_API_KEY: "k", OPENAI_API_KEY: "k" }), { HOME: "/h" });
  assert.equal(profile.chooseAuth([{ id: "oauth" }], undefined, {}).methodId, null);
  assert.equal(profile.waitsForMcpInitialized, false);
});

test("only grok waits for _x.ai/mcp_initialized; Codex and Claude choose auth from their own methods", () => {
  for (const name of AGENT_NAMES) assert.equal(agentProfile(name).waitsForMcpInitialized, name === "grok", name);
  const codex = agentProfile("codex");
  assert.equal(
    codex.chooseAuth([{ id: "codex-api-key" }, { id: "openai-api-key" }, { id: "chatgpt" }], undefined, {
      CODEX_API_KEY: "k",
    }).methodId,
    "codex-api-key",
  );
  assert.equal(codex.chooseAuth([{ id: "api-key" }], undefined, { OPENAI_API_KEY: "k" }).methodId, "api-key");
  assert.equal(codex.chooseAuth([{ id: "chatgpt" }], undefined, {}).methodId, null, "never the browser login");
  assert.equal(agentProfile("claude").chooseAuth([], undefined, {}).methodId, null);
  assert.equal(
    agentProfile("gemini").chooseAuth([{ id: "gemini-api-key" }], undefined, {}).methodId,
    undefined,
    "no key: not authenticated",
  );
});

test("every profile's credential variables are secret names, so redaction masks them and the MCP server never gets them", async () => {
  const { isSecretName } = await import("../internal/redact.js");
  const credential = /(_API_KEY|_AUTH_TOKEN|_TOKEN|_PASSWORD|_SECRET)$/;
  const names = AGENT_NAMES.flatMap((name) => agentProfile(name).envAllow.filter((v) => credential.test(v)));
  assert.ok(
    names.includes("ANTHROPIC_API_KEY") && names.includes("OPENAI_API_KEY") && names.includes("GEMINI_API_KEY"),
    names.join(", "),
  );
  assert.deepEqual(
    names.filter((n) => !isSecretName(n)),
    [],
    "credential variables an agent reads but redaction does not know",
  );
});
