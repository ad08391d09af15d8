import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { JOB_SCHEMA, validateJobSpec } from "./job-spec.js";

test("a job with a repo carries repo and base, and takes neither cwd nor session; base needs a repo", () => {
  const spec = validateJobSpec({ schema: JOB_SCHEMA, prompt: "p", repo: "https://example.test/app.git", base: "main" });
  assert.equal(spec.repo, "https://example.test/app.git");
  assert.equal(spec.base, "main");
  for (const bad of [
    { repo: "/srv/app.git", cwd: "/srv" },
    { repo: "/srv/app.git", session: "s" },
    { base: "main" },
    { repo: "" },
    { repo: 3 },
  ]) {
    assert.throws(
      () => validateJobSpec({ schema: JOB_SCHEMA, prompt: "p", ...bad }),
      (e) => isSeatError(e, "FLEET_JOB_INVALID"),
      JSON.stringify(bad),
    );
  }
});

test("a job names notification targets and nothing more: a URL, a command or a secret is refused", () => {
  assert.deepEqual(validateJobSpec({ schema: JOB_SCHEMA, prompt: "p", notify: ["phone", "ops"] }).notify, [
    "phone",
    "ops",
  ]);
  assert.deepEqual(validateJobSpec({ schema: JOB_SCHEMA, prompt: "p", notify: ["none"] }).notify, ["none"]);
  for (const notify of [
    ["https://attacker.example/hook"],
    [{ type: "webhook", url: "http://127.0.0.1/", secret: "s" }],
    ["rm -rf /"],
    "phone",
    ["none", "phone"],
  ]) {
    assert.throws(
      () => validateJobSpec({ schema: JOB_SCHEMA, prompt: "p", notify }),
      (e) => isSeatError(e, "FLEET_JOB_INVALID"),
      JSON.stringify(notify),
    );
  }
});
