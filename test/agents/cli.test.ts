/*
 * `seat run --agent X --json` on the REAL agents, offline against the mock: the CLI streams NDJSON events of a
 * real turn, and `--block execute` keeps a real shell command from running (its marker file never exists).
 * The agent's offline wiring reaches it through the CLI's own environment (allow-listed names only).
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { buildProfileEnv } from "../../src/agents/index.js";
import { startAgentRig, AGENTS_UNDER_TEST as AGENTS, wiringOf } from "./rig.js";
import { agentTest } from "./results.js";
import { runSeat } from "../support/cli.js";

const runCli = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => runSeat(args, { env, cwd });

for (const agent of AGENTS) {
  describe(`seat run --agent ${agent} (real agent, offline)`, () => {
    agentTest(
      agent,
      ["cli-json"],
      `seat run --agent ${agent} --json streams the turn, and --block execute keeps the shell command from running`,
      async () => {
        const { wiring } = wiringOf(agent);
        const rig = await startAgentRig(agent, {
          rules: [
            {
              match: "run the blocked command",
              replies: [
                { text: "trying ", toolCalls: [wiring.shellCall("echo ran > blocked.marker")] },
                { text: "the command was refused" },
              ],
            },
          ],
        });
        try {
          // The CLI's env: the rig's source env plus the wiring, exactly what a user would export.
          const env = { ...rig.options.env, ...rig.options.agentEnv, NO_COLOR: "1" };
          const dropped = Object.keys(rig.options.agentEnv ?? {}).filter(
            (name) => !(name in buildProfileEnv(rig.profile, env)),
          );
          assert.deepEqual(dropped, [], "the offline wiring only uses allow-listed variables");
          const { code, stdout, stderr } = await runCli(
            ["run", "--agent", agent, "--json", "--block", "execute,edit", "please run the blocked command"],
            env,
            rig.cwd,
          );
          const events = stdout
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line) as { type: string; decision?: string; text?: string });
          assert.ok(
            events.some((e) => e.type === "text"),
            `streamed text events (exit ${code}; stderr ${stderr.slice(-500)})`,
          );
          assert.ok(
            events.some((e) => e.type === "permission" && e.decision === "deny"),
            `a permission event denied the command: ${stdout.slice(0, 2000)}`,
          );
          assert.ok(
            events.some((e) => e.type === "done"),
            "the turn ended with a done event",
          );
          assert.equal(existsSync(join(rig.cwd, "blocked.marker")), false, "the blocked command never ran");
        } finally {
          await rig.cleanup();
        }
      },
    );
  });
}
