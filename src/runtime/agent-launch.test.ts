import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { test } from "node:test";
import { agentProfile, customProfile, throwawayHomeEnv } from "../agents/index.js";
import { isSeatError } from "../errors.js";
import { withSessionLaunch } from "./agent-launch.js";

const base = { argv: ["agent", "acp"], env: { HOME: "/h" } };

test("a model asked of a custom agent is refused with AGENT_MODEL_UNSUPPORTED before anything starts", () => {
  assert.throws(
    () => withSessionLaunch(customProfile("my-agent --acp"), base, { model: "m" }),
    (e: unknown) => isSeatError(e, "AGENT_MODEL_UNSUPPORTED"),
  );
  assert.deepEqual(
    withSessionLaunch(customProfile("my-agent --acp"), base, { rules: "r" }).argv,
    base.argv,
    "no model, no change",
  );
});

test("OpenCode's rules go to a private file its OPENCODE_CONFIG_CONTENT names, with the model; cleanup removes it", () => {
  const launch = withSessionLaunch(agentProfile("opencode"), base, { model: "mock/m2", rules: "RULES-TEXT" });
  try {
    const content = JSON.parse(launch.env.OPENCODE_CONFIG_CONTENT!) as { model: string; instructions: string[] };
    assert.equal(content.model, "mock/m2");
    assert.equal(readFileSync(content.instructions[0]!, "utf8").trim(), "RULES-TEXT");
    launch.cleanup();
    assert.equal(existsSync(dirname(content.instructions[0]!)), false, "the rules dir is gone after cleanup");
  } finally {
    launch.cleanup();
  }
});

test("Gemini's rules become GEMINI.md in an include directory with system settings that load it; the model is --model", () => {
  const launch = withSessionLaunch(agentProfile("gemini"), base, { model: "g2", rules: "RULES-TEXT" });
  try {
    const dir = launch.argv[launch.argv.indexOf("--include-directories") + 1]!;
    assert.deepEqual(launch.argv.slice(0, 4), ["agent", "acp", "--model", "g2"]);
    assert.equal(readFileSync(`${dir}/GEMINI.md`, "utf8").trim(), "RULES-TEXT");
    const settings = JSON.parse(readFileSync(launch.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH!, "utf8")) as {
      context: { loadMemoryFromIncludeDirectories: boolean };
    };
    assert.equal(settings.context.loadMemoryFromIncludeDirectories, true);
  } finally {
    launch.cleanup();
  }
});

test("Codex and Claude take the model through their env; Codex's rules travel in the handshake, not the launch", () => {
  assert.deepEqual(
    JSON.parse(withSessionLaunch(agentProfile("codex"), base, { model: "c2", rules: "r" }).env.CODEX_CONFIG!),
    { model: "c2" },
  );
  assert.equal(withSessionLaunch(agentProfile("claude"), base, { model: "a2" }).env.ANTHROPIC_MODEL, "a2");
});

test("a throwaway-HOME env moves HOME and the XDG dirs and drops the agents' config-dir variables", () => {
  const env = throwawayHomeEnv(
    {
      HOME: "/real",
      CODEX_HOME: "/real/.codex",
      CLAUDE_CONFIG_DIR: "/real/.claude",
      XDG_CONFIG_HOME: "/real/.config",
      PATH: "/bin",
    },
    "/tmp/x",
  );
  assert.equal(env.HOME, "/tmp/x");
  assert.equal(env.XDG_CONFIG_HOME, "/tmp/x/.config");
  assert.equal(env.PATH, "/bin");
  assert.equal("CODEX_HOME" in env, false);
  assert.equal("CLAUDE_CONFIG_DIR" in env, false);
});
