import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../errors.js";
import { ensurePrivateDir } from "../home/index.js";
import { APPROVAL_RECORD_SCHEMA, approvalRecordsDir } from "../approvals/record.js";
import { makeZombie } from "../../test/support/zombie.js";
import { answerApproval } from "./approvals.js";

/** A seat home with one pending approval record naming `pid` as the run that held it. */
function homeWithPending(t: { after(fn: () => void): void }, id: string, pid: number): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), "gs-approvals-late-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const env = { ...process.env, GROK_SEAT_HOME: home };
  const dir = approvalRecordsDir(env);
  ensurePrivateDir(dir);
  const deadline = new Date(Date.now() + 60_000).toISOString();
  const record = { schema: APPROVAL_RECORD_SCHEMA, id, pid, state: "pending", deadline, at: new Date().toISOString() };
  writeFileSync(join(dir, `${id}.json`), JSON.stringify(record), { mode: 0o600 });
  return env;
}

async function refusal(id: string, env: NodeJS.ProcessEnv): Promise<{ code: string; why?: unknown }> {
  try {
    await answerApproval(id, { decision: "allow" }, { env });
  } catch (error) {
    if (isSeatError(error)) return { code: error.code, why: (error.context as { why?: unknown } | undefined)?.why };
    throw error;
  }
  assert.fail("answering an approval no live run holds must be refused");
}

test("a late answer to an approval whose run died hears it expired (run-ended), a zombie run included", async (t) => {
  const dead = homeWithPending(t, "ap_00000000000000a1", 2 ** 22 + 11);
  assert.deepEqual(await refusal("ap_00000000000000a1", dead), { code: "APPROVAL_EXPIRED", why: "run-ended" });

  const zombie = await makeZombie();
  t.after(() => zombie.end());
  const ofZombie = homeWithPending(t, "ap_00000000000000a2", zombie.pid);
  assert.deepEqual(await refusal("ap_00000000000000a2", ofZombie), { code: "APPROVAL_EXPIRED", why: "run-ended" });

  // A run that still lives but no longer serves the approval is not called ended.
  const live = spawn("sleep", ["60"], { stdio: "ignore" });
  t.after(() => live.kill("SIGKILL"));
  await new Promise((resolve) => live.once("spawn", resolve));
  const ofLive = homeWithPending(t, "ap_00000000000000a3", live.pid!);
  assert.notEqual((await refusal("ap_00000000000000a3", ofLive)).why, "run-ended");
});
