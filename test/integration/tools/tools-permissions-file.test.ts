// Loading a grok-seat.permissions.v1 policy file from disk.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { loadPolicyFile, resolveAction } from "../../../src/permissions/index.js";

test("loads a policy file and names the path when it is missing or malformed", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-permissions-"));
  try {
    const good = join(dir, "policy.json");
    writeFileSync(
      good,
      JSON.stringify({
        schema: "grok-seat.permissions.v1",
        allow: ["edit"],
        ask: [],
        block: ["network"],
        unrestricted: true,
      }),
    );
    const policy = await loadPolicyFile(good);
    assert.equal(resolveAction(policy, "edit").action, "allow");
    assert.equal(resolveAction(policy, "network").action, "block");
    assert.equal(resolveAction(policy, "execute").action, "allow", "unrestricted allows unconfigured categories");

    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{");
    await assert.rejects(
      loadPolicyFile(bad),
      (e) => isSeatError(e, "PERMISSION_POLICY_INVALID") && e.message.includes(bad),
    );
    const missing = join(dir, "missing.json");
    await assert.rejects(
      loadPolicyFile(missing),
      (e) => isSeatError(e, "PERMISSION_POLICY_INVALID") && e.message.includes(missing),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
