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
