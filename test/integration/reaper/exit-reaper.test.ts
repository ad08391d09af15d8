/*
 * The exit reaper: a host process that ends without disposing its agent (process.exit from anywhere, the CLI's
 *   last-resort handler after an uncaught exception) leaves no agent process behind. `sleep` stands in for an
 *   agent that neither reads stdin nor asks for PDEATHSIG, so only the reaper can end it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { snapshotTree } from "../../../src/grok/process-tree.js";
import { alive } from "../../support/processes.js";

const PROCESS_JS = fileURLToPath(new URL("../../../src/grok/process.js", import.meta.url));

test("a host that exits without dispose takes its agent's process group with it", async (t) => {
  const script = `
    const { spawnAgent } = await import(${JSON.stringify(PROCESS_JS)});
    const agent = await spawnAgent({ argv: ["sh", "-c", "sleep 60 & sleep 60"], env: { PATH: process.env.PATH } });
    process.stdout.write(String(agent.pid));
    process.exit(3);
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
  assert.equal(r.status, 3, r.stderr);
  const pid = Number(r.stdout.trim());
  assert.ok(Number.isInteger(pid) && pid > 0, r.stdout);
  t.after(() => {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  });
  // SIGKILL reaches each member of the group when it is next scheduled: on a loaded machine that may take a while,
  // so wait (bounded) for the group to empty. Without the reaper the sleeps live 60 s, far past this deadline.
  const deadline = Date.now() + 10_000;
  const groupAlive = () => alive(pid) || snapshotTree([], pid).length > 0;
  while (groupAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.equal(alive(pid), false, "the agent outlived its host");
  assert.deepEqual(
    snapshotTree([], pid).map((p) => p.pid),
    [],
    "processes of the agent's group outlived the host",
  );
});
