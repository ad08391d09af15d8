/*
 * The reaper (src/grok/reaper*.ts) on plain processes: a SIGKILLed host takes its agent's whole tree with it, a
 *   descendant reparented away before any scan is still found by its environment tag, and a reaper whose agent
 *   tree is gone exits by itself. `sleep` stands in for agents and tools that ignore stdin and ask for no PDEATHSIG.
 *   The same promise on the real grok, for every owner, is test/live/reaper.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { processesWithHome } from "../../bench/r8-disconnects.js";
import { readProcStat } from "../../src/grok/process-tree.js";
import { newReaperTag, REAPER_TAG_ENV, startReaper } from "../../src/grok/reaper.js";
import { alive } from "../support/processes.js";
import { isSeatError } from "../../src/errors.js";

const PROCESS_JS = fileURLToPath(new URL("../../src/grok/process.js", import.meta.url));
const REAPER_MAIN = fileURLToPath(new URL("../../src/grok/reaper-main.js", import.meta.url));
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

test("a SIGKILLed host takes its agent's whole tree within 5 s, a grandchild in its own session included", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "gs-reaper-"));
  t.after(() => {
    killAll(home);
    rmSync(home, { recursive: true, force: true });
  });
  const script = `
    const { spawnAgent } = await import(${JSON.stringify(PROCESS_JS)});
    await spawnAgent({ argv: ["sh", "-c", "setsid sleep 61 & sleep 62"], env: { PATH: process.env.PATH, HOME: ${JSON.stringify(home)} } });
    process.stdout.write("up\\n");
    setInterval(() => {}, 1000);
  `;
  const host = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve) => host.stdout.once("data", resolve));
  assert.ok(await waitFor(() => processesWithHome(home).filter((p) => p.cmdline.startsWith("sleep")).length === 2, 5_000), "both sleeps started");
  const escaped = processesWithHome(home).find((p) => p.cmdline === "sleep 61")!;
  assert.notEqual(readProcStat(escaped.pid)?.sid, readProcStat(host.pid!)?.sid, "the grandchild left for its own session");
  host.kill("SIGKILL");
  const gone = await waitFor(() => processesWithHome(home).length === 0, 5_000);
  assert.deepEqual(gone ? [] : processesWithHome(home), [], "processes of the agent's tree outlived the host by 5 s");
});

test("a descendant reparented away before the reaper ever scanned is still ended, found by the agent's environment tag", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "gs-reaper-"));
  t.after(() => {
    killAll(home);
    rmSync(home, { recursive: true, force: true });
  });
  const tag = newReaperTag();
  // The agent starts a helper in its own session and exits at once: the helper's parent is gone before the reaper
  // starts, and with a one-hour scan interval no walk from the agent could ever reach it.
  const agent = spawn("sh", ["-c", "setsid sleep 63 & exit 0"], { env: { PATH: process.env.PATH, HOME: home, [REAPER_TAG_ENV]: tag }, stdio: "ignore", detached: true });
  await new Promise((resolve) => agent.once("exit", resolve));
  assert.ok(await waitFor(() => processesWithHome(home).some((p) => p.cmdline === "sleep 63"), 5_000), "the helper started");
  const reaper = await startReaper(agent.pid!, undefined, { tag, scanMs: 3_600_000 });
  reaper.release();
  const gone = await waitFor(() => processesWithHome(home).length === 0 && !alive(reaper.pid), 5_000);
  assert.deepEqual(gone ? [] : processesWithHome(home), [], "the tagged helper outlived the reaper's release");
  assert.equal(alive(reaper.pid), false, "the reaper exits after it reaped");
});

test("a reaper whose agent tree is gone exits by itself while its owner lives on", async () => {
  const agent = spawn("sleep", ["0.2"], { stdio: "ignore", detached: true });
  const reaper = await startReaper(agent.pid!, readProcStat(agent.pid!)?.startTicks, { tag: newReaperTag(), scanMs: 50 });
  try {
    await new Promise((resolve) => agent.once("exit", resolve));
    assert.ok(await waitFor(() => !alive(reaper.pid), 5_000), "the reaper still runs with nothing left to guard");
  } finally {
    reaper.release();
  }
});

test("reaper-main refuses a bad agent pid with exit 2 and a usage line", () => {
  for (const args of [["abc", "-", "-"], ["1", "-", "-"], ["4242", "-", "-", "5"]]) {
    const r = spawnSync(process.execPath, [REAPER_MAIN, ...args], { input: "", encoding: "utf8", timeout: 10_000 });
    assert.equal(r.status, 2, args.join(" "));
    assert.match(r.stderr, /^usage: reaper-main\.js <agent pid>/);
  }
});

test("a reaper that cannot be started is GROK_REAPER_FAILED naming the command", async () => {
  await assert.rejects(startReaper(4242, undefined, { nodePath: "/nonexistent/node" }), (e) => isSeatError(e, "GROK_REAPER_FAILED") && /\/nonexistent\/node/.test(e.message) && e.context.errno === "ENOENT");
});
