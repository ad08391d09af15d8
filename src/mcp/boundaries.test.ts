import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../errors.js";
import {
  createPolicy,
  parsePolicyFlags,
  resolveAction,
  PERMISSION_CATEGORIES,
  type PermissionAction,
} from "../permissions/index.js";
import { checkAgent, checkModel, narrowPolicy, resolveCwd } from "./boundaries.js";

const actions = (p: ReturnType<typeof narrowPolicy>) =>
  Object.fromEntries(PERMISSION_CATEGORIES.map((c) => [c, resolveAction(p, c).action])) as Record<
    string,
    PermissionAction
  >;

test("narrowPolicy: no narrowing keeps every resolved action, unrestricted mode included", () => {
  const server = parsePolicyFlags({ unrestricted: true, block: "network" });
  assert.deepEqual(actions(narrowPolicy(server)), actions(server));
  assert.equal(actions(narrowPolicy(server)).execute, "allow");
});

test("narrowPolicy: an allow list blocks every allowed category it leaves out; block blocks; nothing becomes looser", () => {
  const server = createPolicy({ allow: ["read", "edit", "execute"], ask: ["network"] });
  const narrowed = actions(narrowPolicy(server, { allow: ["read"], block: ["network"] }));
  assert.deepEqual(narrowed, {
    read: "allow",
    edit: "block",
    execute: "block",
    network: "block",
    mcp: "require-approval",
    other: "require-approval",
  });
  const strictness: Record<string, number> = { allow: 0, "require-approval": 1, block: 2 };
  for (const c of PERMISSION_CATEGORIES)
    assert.ok(strictness[narrowed[c]!] >= strictness[resolveAction(server, c).action], c);
});

test("narrowPolicy: an allow list naming a category the server does not allow is MCP_POLICY_WIDENING", () => {
  const server = createPolicy({ allow: ["read"], block: ["execute"] });
  assert.throws(
    () => narrowPolicy(server, { allow: ["read", "execute"] }),
    (e) => isSeatError(e, "MCP_POLICY_WIDENING") && /execute: block/.test(e.message),
  );
  assert.throws(
    () => narrowPolicy(createPolicy({}), { allow: ["edit"] }),
    (e) => isSeatError(e, "MCP_POLICY_WIDENING"),
  );
});

test("resolveCwd: under a root by its real path; .., a symlink out, a relative or missing path are MCP_CWD_OUTSIDE_ROOTS", () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "mcp-roots-")));
  try {
    const root = join(base, "root");
    mkdirSync(join(root, "a", "b"), { recursive: true });
    mkdirSync(join(base, "rootish"));
    symlinkSync(base, join(root, "out"));
    symlinkSync(join(root, "a"), join(base, "into"));
    assert.equal(resolveCwd(undefined, [root]), root);
    assert.equal(resolveCwd(join(root, "a", "b"), [root]), join(root, "a", "b"));
    assert.equal(resolveCwd(join(base, "into"), [root]), join(root, "a"), "a symlink into a root resolves inside it");
    for (const bad of [join(root, ".."), join(root, "out"), join(base, "rootish"), "a/b", join(root, "missing")]) {
      assert.throws(
        () => resolveCwd(bad, [root]),
        (e) => isSeatError(e, "MCP_CWD_OUTSIDE_ROOTS"),
        bad,
      );
    }
    assert.throws(
      () => resolveCwd(undefined, []),
      (e) => isSeatError(e, "MCP_CWD_OUTSIDE_ROOTS"),
    );
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("checkAgent and checkModel: only allowed agents; model ids without shell or path tricks", () => {
  assert.equal(checkAgent(undefined, ["grok", "codex"]), "grok");
  assert.equal(checkAgent("codex", ["grok", "codex"]), "codex");
  assert.throws(
    () => checkAgent("claude", ["grok"]),
    (e) => isSeatError(e, "MCP_AGENT_NOT_ALLOWED"),
  );
  assert.equal(checkModel("grok-cli/grok-code-fast-1"), "grok-cli/grok-code-fast-1");
  for (const bad of ["", "$(id)", "a b", "../x", "-m"])
    assert.throws(
      () => checkModel(bad),
      (e) => isSeatError(e, "MCP_ARGUMENT_INVALID"),
      bad,
    );
});
