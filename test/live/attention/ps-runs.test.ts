/*
 * `seat ps` lists plain `seat run` processes (issue 16 §2) on the real grok 1.0.41: a running one as `run`
 * with its state, agent, cwd and pid; one whose shell command is held as waiting on an approval with the count;
 * one killed with SIGKILL (its socket file left behind) is never listed and its socket file is pruned.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runSeat, startSeat } from "../../support/cli.js";
import type { LiveRig } from "../../support/live-rig.js";
import { withLiveRig } from "../../support/live-turns.js";
import { seatEnvFor } from "../../support/required-live-rig.js";
import { untilDefined } from "../../support/poll.js";

type Item = Record<string, unknown>;

const envFor = (rig: LiveRig): NodeJS.ProcessEnv => seatEnvFor(rig, { NO_COLOR: "1" });

async function ps(rig: LiveRig): Promise<Item[]> {
  const listed = await runSeat(["ps", "--json"], { env: envFor(rig), cwd: rig.sandbox.project });
  assert.equal(listed.code, 0, listed.stderr);
  return listed.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Item);
}

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> =>
  untilDefined(what, probe, { timeoutMs, everyMs: 100 });

/** The pids of the grok processes whose environment names `dir` (the rig's GROK_HOME). */
function grokProcessesIn(dir: string): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .flatMap((name) => {
      try {
        if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, "utf8"))) return [];
        return readFileSync(`/proc/${name}/cmdline`, "utf8").includes("grok") &&
          readFileSync(`/proc/${name}/environ`, "utf8").includes(dir)
          ? [Number(name)]
          : [];
      } catch {
        return [];
      }
    });
}

/** Every descendant of `pid` (read from /proc/N/stat's parent field). */
function descendantsOf(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended while we looked
    }
  }
  const found: number[] = [];
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of parents) {
      if ((parent === pid || found.includes(parent)) && !found.includes(child)) {
        found.push(child);
        grew = true;
      }
    }
  }
  return found;
}

function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

test("seat ps lists plain seat runs (working, then waiting on a held approval) and prunes a SIGKILLed run's socket instead of listing it", async (t) => {
  const script = {
    rules: [
      { match: "hang now", replies: [{ hang: true }] },
      // grok 1.0.41 refuses run_terminal_command without `description`.
      {
        match: "held shell",
        replies: [
          {
            toolCalls: [
              {
                name: "run_terminal_command",
                arguments: { command: "echo ran > marker-run.txt", description: "write marker-run.txt" },
              },
            ],
          },
          { text: "went on" },
        ],
      },
    ],
  };
  await withLiveRig(t, script, async (rig) => {
    const env = envFor(rig);
    const cwd = rig.sandbox.project;
    const hanging = startSeat(["run", "--json", "hang now"], { env, cwd });
    const held = startSeat(["run", "--json", "held shell"], { env, cwd });
    try {
      const working = await until("the hanging run to be listed working", async () =>
        (await ps(rig)).find((i) => i.pid === hanging.child.pid && i.state === "working"),
      );
      assert.equal(working.kind, "run");
      assert.equal(working.agent, "grok");
      assert.equal(working.cwd, cwd);
      assert.match(String(working.id), /\S/);
      assert.equal(working.pendingApprovals, 0);
      const waiting = await until("the held run to be listed waiting", async () =>
        (await ps(rig)).find((i) => i.pid === held.child.pid && i.state === "waiting"),
      );
      assert.equal(waiting.kind, "run");
      assert.equal(waiting.waitingOn, "approval");
      assert.equal(waiting.pendingApprovals, 1);
      const table = await runSeat(["ps"], { env, cwd });
      assert.match(table.stdout, new RegExp(`^run +${String(waiting.id)} +grok +waiting\\(approval\\) `, "m"));

      // SIGKILL runs no exit hook: the socket file stays. It is never listed, and once old enough it is pruned.
      const sessionsDir = join(env.GROK_SEAT_HOME!, "sessions");
      const sockets = () => readdirSync(sessionsDir).filter((n) => n.endsWith(".sock"));
      assert.equal(sockets().length, 2);
      const orphans = descendantsOf(hanging.child.pid!);
      assert.ok(orphans.length > 0, "the hanging run's grok is its child");
      hanging.child.kill("SIGKILL");
      await hanging.done;
      killAll(orphans);
      const after = await ps(rig);
      assert.equal(
        after.some((i) => i.pid === hanging.child.pid),
        false,
        "a dead run is never listed",
      );
      assert.ok(
        after.some((i) => i.pid === held.child.pid),
        "the live one still is",
      );
      await until(
        "the dead run's socket to be pruned",
        async () => {
          await ps(rig);
          return sockets().length === 1 ? true : undefined;
        },
        15_000,
      );

      const denied = await runSeat(
        [
          "deny",
          String(
            (
              await until("the approval", async () => {
                const listed = await runSeat(["approvals", "--json"], { env, cwd });
                return listed.stdout
                  .trim()
                  .split("\n")
                  .filter(Boolean)
                  .map((l) => JSON.parse(l) as Item)
                  .find((a) => a.type === "approval");
              })
            ).id,
          ),
        ],
        { env, cwd },
      );
      assert.equal(denied.code, 0, denied.stderr);
      const ended = await held.done;
      assert.ok(
        ended.stdout
          .split("\n")
          .some((l) => l.includes('"type":"approval_answered"') && l.includes('"decision":"deny"')),
        ended.stdout.slice(-1500),
      );
      assert.equal(existsSync(join(cwd, "marker-run.txt")), false, "the denied command never ran");
      assert.deepEqual(await ps(rig), [], "nothing is live once the runs ended");
      assert.deepEqual(sockets(), [], "the ended run removed its own socket");
    } finally {
      hanging.child.kill("SIGKILL");
      held.child.kill("SIGKILL");
      killAll(grokProcessesIn(rig.sandbox.grokHome));
    }
  });
});
