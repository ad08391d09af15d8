import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { DEFAULT_POLICY, resolveAction } from "./policy.js";
import { parsePolicyFlags, parsePolicyJson } from "./policy-parse.js";

test("the safe default allows reads and asks for everything else", () => {
  assert.deepEqual(resolveAction(DEFAULT_POLICY, "read"), { action: "allow", source: "default" });
  for (const category of ["edit", "execute", "network", "mcp", "other"] as const) {
    assert.deepEqual(resolveAction(DEFAULT_POLICY, category), { action: "require-approval", source: "default" });
  }
});

test("flags set actions per category from CSV lists", () => {
  const policy = parsePolicyFlags({ allow: "edit, mcp", block: "network", ask: "" });
  assert.deepEqual(resolveAction(policy, "edit"), { action: "allow", source: "policy" });
  assert.deepEqual(resolveAction(policy, "mcp"), { action: "allow", source: "policy" });
  assert.deepEqual(resolveAction(policy, "network"), { action: "block", source: "policy" });
  assert.deepEqual(resolveAction(policy, "execute"), { action: "require-approval", source: "default" });
});

test("unrestricted allows unconfigured categories but configured ask and block still apply", () => {
  const policy = parsePolicyFlags({ ask: "execute", block: "network", unrestricted: true });
  assert.deepEqual(resolveAction(policy, "edit"), { action: "allow", source: "policy" });
  assert.deepEqual(resolveAction(policy, "mcp"), { action: "allow", source: "policy" });
  assert.deepEqual(resolveAction(policy, "execute"), { action: "require-approval", source: "policy" });
  assert.deepEqual(resolveAction(policy, "network"), { action: "block", source: "policy" });
});

test("a hand-built policy without a configured list treats non-default entries as configured", () => {
  const policy = { defaults: { ...DEFAULT_POLICY.defaults, mcp: "block" as const }, unrestricted: true };
  assert.equal(resolveAction(policy, "mcp").action, "block");
  assert.equal(resolveAction(policy, "edit").action, "allow");
});

test("refuses unknown categories and conflicting entries, naming the bad value", () => {
  assert.throws(
    () => parsePolicyFlags({ allow: "edit,shell" }),
    (e) => isSeatError(e, "PERMISSION_POLICY_INVALID") && /"shell"/.test(e.message),
  );
  assert.throws(
    () => parsePolicyFlags({ allow: "edit", block: "edit" }),
    (e) => isSeatError(e, "PERMISSION_POLICY_INVALID") && /"edit" is in both allow and block/.test(e.message),
  );
});

test("parses a v1 policy file and refuses bad JSON, wrong schema and unknown keys", () => {
  const policy = parsePolicyJson(
    JSON.stringify({ schema: "grok-seat.permissions.v1", allow: ["mcp"], block: ["execute"], unrestricted: false }),
  );
  assert.equal(resolveAction(policy, "mcp").action, "allow");
  assert.equal(resolveAction(policy, "execute").action, "block");
  const refusals: Array<[string, RegExp]> = [
    ["{not json", /not valid JSON/],
    [JSON.stringify({ schema: "grok-seat.permissions.v0" }), /grok-seat\.permissions\.v0/],
    [JSON.stringify({ schema: "grok-seat.permissions.v1", deny: ["edit"] }), /unknown key "deny"/],
    [JSON.stringify({ schema: "grok-seat.permissions.v1", allow: "edit" }), /"allow" must be an array/],
    [JSON.stringify({ schema: "grok-seat.permissions.v1", ask: ["netwrok"] }), /"netwrok"/],
    [
      JSON.stringify({ schema: "grok-seat.permissions.v1", unrestricted: "yes" }),
      /"unrestricted" must be true or false/,
    ],
  ];
  for (const [text, pattern] of refusals) {
    assert.throws(
      () => parsePolicyJson(text),
      (e) => isSeatError(e, "PERMISSION_POLICY_INVALID") && pattern.test(e.message),
      String(pattern),
    );
  }
});
