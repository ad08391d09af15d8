import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { redactText } from "../internal/redact.js";
import { JOB_SCHEMA, type JobSpec } from "./job-spec.js";
import { canonicalJson, checkSeal, fleetKey, sealJob, specDigest } from "./job-seal.js";

const KEY = "job-seal-unit-key-0123456789abcdef0123";
const SPEC: JobSpec = {
  schema: JOB_SCHEMA,
  prompt: "list the files",
  agent: "grok",
  model: "grok-4",
  cwd: "/srv/app",
  budget: { maxTokens: 6000 },
  policy: {
    defaults: {
      read: "allow",
      edit: "require-approval",
      execute: "require-approval",
      network: "require-approval",
      mcp: "require-approval",
      other: "require-approval",
    },
  },
};

test("the digest does not depend on key order, and changes with every field a submitter sets", () => {
  const reordered = JSON.parse(
    JSON.stringify({
      budget: SPEC.budget,
      cwd: SPEC.cwd,
      policy: SPEC.policy,
      model: SPEC.model,
      agent: SPEC.agent,
      prompt: SPEC.prompt,
      schema: SPEC.schema,
    }),
  ) as JobSpec;
  assert.equal(specDigest(reordered), specDigest(SPEC));
  assert.equal(canonicalJson({ b: 1, a: [{ d: 2, c: 3 }] }), '{"a":[{"c":3,"d":2}],"b":1}');
  const changes: Array<Partial<JobSpec>> = [
    { prompt: "rm -rf /" },
    { agent: "codex" },
    { model: "grok-3" },
    { cwd: "/" },
    { budget: { maxTokens: 6001 } },
    { policy: { ...SPEC.policy!, unrestricted: true } },
    { allowUnmetered: true },
  ];
  for (const change of changes)
    assert.notEqual(specDigest({ ...SPEC, ...change }), specDigest(SPEC), JSON.stringify(change));
});

test("checkSeal: the sealed spec passes; a rewritten one is FLEET_JOB_TAMPERED; no digest, or no signature for a keyed worker, is FLEET_JOB_UNSIGNED", () => {
  const signed = sealJob("j1", SPEC, "alice@laptop", KEY);
  checkSeal("j1", SPEC, signed, KEY);
  checkSeal("j1", SPEC, signed, undefined);
  const tampered = (e: unknown) => isSeatError(e, "FLEET_JOB_TAMPERED");
  const unsigned = (e: unknown) => isSeatError(e, "FLEET_JOB_UNSIGNED");
  assert.throws(() => checkSeal("j1", { ...SPEC, prompt: "x" }, signed, KEY), tampered);
  assert.throws(() => checkSeal("j1", { ...SPEC, prompt: "x" }, signed, undefined), tampered);
  const forged = { ...SPEC, prompt: "x" };
  assert.throws(
    () => checkSeal("j1", forged, { ...signed, spec_digest: specDigest(forged) }, KEY),
    tampered,
    "a re-sealed digest fails the signature",
  );
  assert.throws(() => checkSeal("j2", SPEC, signed, KEY), tampered, "the signature names the job id");
  assert.throws(
    () => checkSeal("j1", SPEC, { ...signed, submitted_by: "root@server" }, KEY),
    tampered,
    "and the submitter",
  );
  assert.throws(
    () => checkSeal("j1", SPEC, sealJob("j1", SPEC, "alice@laptop", `${KEY}-other`), KEY),
    tampered,
    "another key",
  );
  assert.throws(() => checkSeal("j1", SPEC, sealJob("j1", SPEC, "alice@laptop", undefined), KEY), unsigned);
  assert.throws(() => checkSeal("j1", SPEC, {}, undefined), unsigned);
});

test("the fleet key comes only from the environment, is registered as a secret, and a short one is refused without echoing it", () => {
  assert.equal(fleetKey({}), undefined);
  assert.equal(fleetKey({ GROK_SEAT_FLEET_KEY: KEY }), KEY);
  assert.equal(redactText(`key is ${KEY}`).includes(KEY), false);
  assert.throws(
    () => fleetKey({ GROK_SEAT_FLEET_KEY: "too-short-canary" }),
    (e) => isSeatError(e, "FLEET_KEY_INVALID") && !(e as Error).message.includes("too-short-canary"),
  );
});
