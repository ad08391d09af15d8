/*
 * Held approvals on the REAL agents (issue 16 §4: the proof on an agent other than grok), offline against the
 * mock: `seat run --agent X --ask execute,edit` holds the agent's permission request for its shell command;
 * `seat approvals` in another process lists it and `seat approve` in a third allows it. Whether the command ran,
 * and how often, is read from the disk (a line it appends to a marker file), never from what anyone reported.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { startAgentRig, AGENTS_UNDER_TEST as AGENTS, wiringOf } from "./rig.js";
import { agentTest } from "./results.js";
import { runSeat, startSeat } from "../support/cli.js";
import { jsonLines } from "../support/json-lines.js";

type Line = { type: string; [key: string]: unknown };
const lines = (out: string): Line[] => jsonLines<Line>(out);

for (const agent of AGENTS) {
  describe(`seat approve on ${agent} (real agent, offline)`, () => {
    agentTest(
      agent,
      ["approval-held"],
      `${agent}: a held shell command is listed by seat approvals and allowed by seat approve from other processes; it runs exactly once`,
      async () => {
        const { wiring } = wiringOf(agent);
        const rig = await startAgentRig(agent, {
          rules: [
            {
              match: "run the held command",
              replies: [
                { text: "asking ", toolCalls: [wiring.shellCall("echo ran >> held.marker")] },
                { text: "the held command went on" },
              ],
            },
          ],
        });
        try {
          const env = {
            ...rig.options.env,
            ...rig.options.agentEnv,
            GROK_SEAT_HOME: join(rig.home, ".grok-seat"),
            NO_COLOR: "1",
          };
          const marker = join(rig.cwd, "held.marker");
          const run = startSeat(
            ["run", "--agent", agent, "--json", "--ask", "execute,edit", "please run the held command"],
            { env, cwd: rig.cwd },
          );
          try {
            let approval: Line | undefined;
            const deadline = Date.now() + 120_000;
            while (!approval && Date.now() < deadline && run.child.exitCode === null) {
              const listed = await runSeat(["approvals", "--json"], { env, cwd: rig.cwd });
              assert.equal(listed.code, 0, listed.stderr);
              approval = lines(listed.stdout).find(
                (l) => l.type === "approval" && (l.owner as { pid?: number }).pid === run.child.pid,
              );
              if (!approval) await new Promise((resolve) => setTimeout(resolve, 250));
            }
            assert.ok(
              approval,
              `no approval was listed (run exited ${run.child.exitCode}): ${run.stdout().slice(-1500)} ${run.stderr().slice(-800)}`,
            );
            assert.ok(["execute", "edit"].includes(String(approval.category)), String(approval.category));
            assert.equal(existsSync(marker), false, "nothing ran while the approval was held");
            const approved = await runSeat(["approve", String(approval.id), "--json"], { env, cwd: rig.cwd });
            assert.equal(approved.code, 0, approved.stdout + approved.stderr);
            assert.deepEqual(lines(approved.stdout)[0], { type: "answered", id: approval.id, decision: "allow" });
            const done = await run.done;
            const events = lines(done.stdout);
            assert.ok(
              events.some((e) => e.type === "done"),
              `the turn ended (exit ${done.code}): ${done.stderr.slice(-800)}`,
            );
            assert.equal(
              events.find((e) => e.type === "approval_asked" && (e.approval as { id?: string }).id === approval.id)
                ?.type,
              "approval_asked",
            );
            const answered = events.find((e) => e.type === "approval_answered" && e.id === approval.id);
            assert.deepEqual([answered?.decision, answered?.via], ["allow", "answer"]);
            assert.equal(readFileSync(marker, "utf8"), "ran\n", "the approved command ran exactly once");
          } finally {
            run.child.kill("SIGKILL");
          }
        } finally {
          await rig.cleanup();
        }
      },
    );
  });
}
