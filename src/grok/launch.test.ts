import assert from "node:assert/strict";
import { test } from "node:test";
import { buildAgentArgv, buildAgentEnv } from "./launch.js";

test("builds the headless argv with top-level flags before agent and the mode last", () => {
  assert.deepEqual(buildAgentArgv({ binary: "grok" }), ["grok", "--no-auto-update", "agent", "--no-leader", "stdio"]);
  assert.deepEqual(buildAgentArgv({ binary: "/opt/grok", model: "mock", pluginDirs: ["/a", "/b c"] }), [
    "/opt/grok",
    "--no-auto-update",
    "agent",
    "--no-leader",
    "--plugin-dir",
    "/a",
    "--plugin-dir",
    "/b c",
    "-m",
    "mock",
    "stdio",
  ]);
});

test("omits -m when no model is given", () => {
  assert.ok(!buildAgentArgv({ binary: "grok", model: "" }).includes("-m"));
  assert.ok(!buildAgentArgv({ binary: "grok", model: undefined }).includes("-m"));
});

test("the child env keeps allow-listed names and drops a canary secret", () => {
  const source = {
    HOME: "/tmp/h",
    PATH: "/usr/bin",
    GROK_HOME: "/tmp/g",
    XAI_API_KEY: "k",
    LC_ALL: "C.UTF-8",
    XDG_CONFIG_HOME: "/tmp/x",
    GROK_SEAT_CANARY: "must-not-leak",
    AWS_SECRET_ACCESS_KEY: "nope",
    NODE_OPTIONS: "--inspect",
    LC_: "bare-prefix",
    GROK_DISABLE_AUTOUPDATER: "0",
    GROK_TELEMETRY_ENABLED: "1",
  };
  const env = buildAgentEnv(source);
  assert.deepEqual(env, {
    HOME: "/tmp/h",
    PATH: "/usr/bin",
    GROK_HOME: "/tmp/g",
    XAI_API_KEY: "k",
    LC_ALL: "C.UTF-8",
    XDG_CONFIG_HOME: "/tmp/x",
    GROK_DISABLE_AUTOUPDATER: "1",
    GROK_TELEMETRY_ENABLED: "0",
  });
});

test("the default source is process.env, still filtered", () => {
  process.env.GROK_SEAT_CANARY = "must-not-leak";
  try {
    const env = buildAgentEnv();
    assert.equal(env.GROK_SEAT_CANARY, undefined);
    assert.equal(env.GROK_DISABLE_AUTOUPDATER, "1");
  } finally {
    delete process.env.GROK_SEAT_CANARY;
  }
});

test("extra values are added verbatim and undefined removes one, but forced values win", () => {
  const env = buildAgentEnv(
    { HOME: "/h", XAI_API_KEY: "k" },
    { GROK_AGENT_METADATA: "{}", XAI_API_KEY: undefined, GROK_DISABLE_AUTOUPDATER: "0" },
  );
  assert.deepEqual(env, {
    HOME: "/h",
    GROK_AGENT_METADATA: "{}",
    GROK_DISABLE_AUTOUPDATER: "1",
    GROK_TELEMETRY_ENABLED: "0",
  });
});
