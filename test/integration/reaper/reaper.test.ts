/*
 * The reaper (src/grok/reaper*.ts) on plain processes: a SIGKILLed host takes its agent's whole tree with it, a
 *   descendant reparented away before any scan is still found by its environment tag, and a reaper whose agent
 *   tree is gone exits by itself. `sleep` stands in for agents and tools that ignore stdin and ask for no PDEATHSIG.
 *   The same promise on the real grok, for every owner, is test/live/reaper/reaper.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processesWithHome } from "../../../bench/r8-disconnects.js";
import { readProcStat } from "../../../src/grok/process-tree.js";
import { newReaperTag, REAPER_TAG_ENV, startReaper } from "../../../src/grok/reaper.js";
import { alive } from "../../support/processes.js";
import { isSeatError } from "../../../src/errors.js";

const PROCESS_JS = fileURLToPath(new URL("../../../src/grok/process.js", import.meta.url));
const REAPER_MAIN = fileURLToPath(new URL("../../../src/grok/reaper-main.js", import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(test: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!test() && Date.now() < deadline) await sleep(20);
  return test();
}

function killAll(home: string): void {
  for (const p of processesWithHome(home)) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

test("a SIGKILLed host takes its agents' whole trees and its one reaper within 5 s, a grandchild in its own session included", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "gs-reaper-"));
  t.after(() => {
    killAll(home);
    rmSync(home, { recursive: true, force: true });
  });
  const script = `
    const { spawnAgent } = await import(${JSON.stringify(PROCESS_JS)});
    const env = { PATH: process.env.PATH, HOME: ${JSON.stringify(home)} };
    const a = await spawnAgent({ argv: ["sh", "-c", "setsid sleep 61 & sleep 62"], env });
    const b = await spawnAgent({ argv: ["sleep", "66"], env });
    process.stdout.write(JSON.stringify([a.reaperPid, b.reaperPid]) + "\\n");
    setInterval(() => {}, 1000);
  `;
  const host = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const [reaperA, reaperB] = JSON.parse(
    String(await new Promise((resolve) => host.stdout.once("data", resolve))),
  ) as number[];
  assert.ok(Number.isInteger(reaperA) && reaperA === reaperB, "one reaper guards both agents of the host");
  assert.ok(
    await waitFor(() => processesWithHome(home).filter((p) => p.cmdline.startsWith("sleep")).length === 3, 5_000),
    "the sleeps started",
  );
  const escaped = processesWithHome(home).find((p) => p.cmdline === "sleep 61")!;
  assert.notEqual(
    readProcStat(escaped.pid)?.sid,
    readProcStat(host.pid!)?.sid,
    "the grandchild left for its own session",
  );
  host.kill("SIGKILL");
  const gone = await waitFor(() => processesWithHome(home).length === 0 && !alive(reaperA!), 5_000);
  assert.deepEqual(gone ? [] : processesWithHome(home), [], "processes of the agents' trees outlived the host by 5 s");
  assert.equal(alive(reaperA!), false, "the reaper exits after it reaped");
});

test("a descendant reparented away before the reaper ever scanned is still ended, found by the agent's environment tag", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "gs-reaper-"));
  t.after(() => {
    killAll(home);
    rmSync(home, { recursive: true, force: true });
  });
  const tag = newReaperTag();
  // The agent starts a helper in its own session and exits at once: the helper's parent is gone before the reaper
  // is told about the agent, and with a one-hour scan interval no walk from the agent could ever reach it.
  const agent = spawn("sh", ["-c", "setsid sleep 63 & exit 0"], {
    env: { PATH: process.env.PATH, HOME: home, [REAPER_TAG_ENV]: tag },
    stdio: "ignore",
    detached: true,
  });
  await new Promise((resolve) => agent.once("exit", resolve));
  assert.ok(
    await waitFor(() => processesWithHome(home).some((p) => p.cmdline === "sleep 63"), 5_000),
    "the helper started",
  );
  const reaper = await startReaper({ scanMs: 3_600_000 });
  reaper.guard(agent.pid!, undefined, tag);
  reaper.close();
  const gone = await waitFor(() => processesWithHome(home).length === 0 && !alive(reaper.pid), 5_000);
  assert.deepEqual(gone ? [] : processesWithHome(home), [], "the tagged helper outlived the owner's pipe");
  assert.equal(alive(reaper.pid), false, "the reaper exits after it reaped");
});

test("one reaper guards several agents: release ends what is left of one tree, the others stay guarded until the pipe closes", async (t) => {
  const homes = [0, 1].map(() => mkdtempSync(join(tmpdir(), "gs-reaper-")));
  t.after(() => {
    for (const home of homes) {
      killAll(home);
      rmSync(home, { recursive: true, force: true });
    }
  });
  const reaper = await startReaper({ scanMs: 50 });
  const agents = homes.map((home) => {
    const tag = newReaperTag();
    const agent = spawn("sh", ["-c", "setsid sleep 64 & sleep 65"], {
      env: { PATH: process.env.PATH, HOME: home, [REAPER_TAG_ENV]: tag },
      stdio: "ignore",
      detached: true,
    });
    reaper.guard(agent.pid!, readProcStat(agent.pid!)?.startTicks, tag);
    return agent;
  });
  assert.ok(
    await waitFor(() => homes.every((home) => processesWithHome(home).length === 3), 5_000),
    "both trees started",
  );
  reaper.release(agents[0]!.pid!);
  assert.ok(await waitFor(() => processesWithHome(homes[0]!).length === 0, 5_000), "the released agent's tree is gone");
  await sleep(300);
  assert.equal(processesWithHome(homes[1]!).length, 3, "the other agent's tree is untouched");
  assert.equal(alive(reaper.pid), true, "the reaper keeps guarding");
  reaper.close();
  assert.ok(
    await waitFor(() => processesWithHome(homes[1]!).length === 0 && !alive(reaper.pid), 5_000),
    "the pipe's end reaped the rest and the reaper exited",
  );
});

test("reaper-main refuses a bad scan interval with exit 2 and a usage line; malformed lines are ignored", () => {
  for (const args of [["abc"], ["5"], ["-1"]]) {
    const r = spawnSync(process.execPath, [REAPER_MAIN, ...args], { input: "", encoding: "utf8", timeout: 10_000 });
    assert.equal(r.status, 2, args.join(" "));
    assert.match(r.stderr, /^usage: reaper-main\.js \[scan ms >= 10\]/);
  }
  // pid 1 and non-numbers are never guarded (nothing is signalled), and EOF still ends the reaper cleanly.
  const r = spawnSync(process.execPath, [REAPER_MAIN], {
    input: "garbage\nguard abc - -\nguard 1 - -\nguard 0\nrelease x\n\n",
    encoding: "utf8",
    timeout: 10_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
});

test("a reaper that cannot be started is GROK_REAPER_FAILED naming the command", async () => {
  await assert.rejects(
    startReaper({ nodePath: "/nonexistent/node" }),
    (e) =>
      isSeatError(e, "GROK_REAPER_FAILED") && /\/nonexistent\/node/.test(e.message) && e.context.errno === "ENOENT",
  );
});
