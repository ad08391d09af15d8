/*
 * `seat probe --agent X` and `seat agents` start the REAL agents only to read initialize; they must do it
 * under a throwaway HOME: run with HOME pointing at an empty temp dir, that dir is still empty afterwards
 * (before the fix Codex left ~/.codex, Gemini ~/.gemini, OpenCode ~/.cache/opencode there).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { agentsDirEnv, missingInstall, REQUIRED, AGENTS_UNDER_TEST as AGENTS } from "./rig.js";
import { agentTest } from "./results.js";
import { runSeat } from "../support/cli.js";

const runCli = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => runSeat(args, { env, cwd });

/** Every path under `dir`, relative, sorted. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

/** A fresh empty "real HOME" and a cwd beside it; removed by the returned cleanup. */
function fakeRealHome(): { home: string; cwd: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), "gs-real-home-"));
  const home = join(root, "home");
  const cwd = join(root, "work");
  mkdirSync(home);
  mkdirSync(cwd);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    NO_COLOR: "1",
    ...agentsDirEnv(),
  };
  return { home, cwd, env, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

describe("probing agents leaves the real HOME untouched (real agents)", () => {
  for (const agent of AGENTS) {
    agentTest(
      agent,
      ["throwaway-home"],
      `seat probe --agent ${agent} runs it under a throwaway HOME: the real HOME gets nothing new`,
      async () => {
        const h = fakeRealHome();
        try {
          const { code, stdout, stderr } = await runCli(["probe", "--agent", agent, "--json"], h.env, h.cwd);
          const probe = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as {
            acp?: { agentInfo?: unknown; protocolVersion?: number };
          };
          assert.ok(
            probe.acp?.protocolVersion !== undefined,
            `the agent was started and answered initialize (exit ${code}; ${stdout.slice(0, 500)} ${stderr.slice(-500)})`,
          );
          assert.deepEqual(tree(h.home), [], "nothing new under the real HOME");
          assert.deepEqual(tree(h.cwd), [], "nothing new in the cwd");
        } finally {
          h.cleanup();
        }
      },
    );
  }

  test("seat agents --json probes every installed agent under a throwaway HOME: the real HOME gets nothing new", async (t) => {
    const missing = AGENTS.filter((a) => missingInstall(a));
    if (missing.length > 0) {
      if (REQUIRED) assert.fail(`GROK_SEAT_REQUIRE_AGENTS=1: not installed: ${missing.join(", ")}`);
      t.skip(`not installed: ${missing.join(", ")}`);
      return;
    }
    const h = fakeRealHome();
    try {
      const { code, stdout } = await runCli(["agents", "--json"], h.env, h.cwd);
      assert.equal(code, 0);
      const rows = stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { agent: string; probe?: { protocolVersion?: number } });
      for (const agent of AGENTS)
        assert.ok(rows.find((r) => r.agent === agent)?.probe?.protocolVersion !== undefined, `${agent} was probed`);
      assert.deepEqual(tree(h.home), [], "nothing new under the real HOME");
    } finally {
      h.cleanup();
    }
  });
});
