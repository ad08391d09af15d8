import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isPrivateDir, privateDirProblem, removePrivateDir } from "./private-dir.js";

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "gs-private-dir-"));
}

test("a fresh 0700 directory of ours is private and is removed with its contents", () => {
  const root = scratch();
  try {
    const dir = join(root, "ours");
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    writeFileSync(join(dir, "f"), "x");
    assert.equal(privateDirProblem(dir), null);
    assert.equal(removePrivateDir(dir), true);
    assert.equal(existsSync(dir), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a symlink to a private directory is refused and neither it nor its target is removed", () => {
  const root = scratch();
  try {
    const target = join(root, "target");
    mkdirSync(target, { mode: 0o700 });
    chmodSync(target, 0o700);
    writeFileSync(join(target, "keep"), "x");
    const link = join(root, "link");
    symlinkSync(target, link);
    assert.match(privateDirProblem(link) ?? "", /symlink/);
    assert.equal(removePrivateDir(link), false);
    assert.ok(existsSync(join(target, "keep")));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a directory with a wider mode, another owner or that is a file is not private and is left alone", () => {
  const root = scratch();
  try {
    const wide = join(root, "wide");
    mkdirSync(wide);
    chmodSync(wide, 0o755);
    assert.match(privateDirProblem(wide) ?? "", /mode 0755/);
    assert.equal(removePrivateDir(wide), false);
    assert.ok(existsSync(wide));
    const mine = join(root, "mine");
    mkdirSync(mine, { mode: 0o700 });
    chmodSync(mine, 0o700);
    const otherUid = (process.getuid?.() ?? 0) + 1;
    assert.match(privateDirProblem(mine, otherUid) ?? "", /owned by uid/);
    assert.equal(removePrivateDir(mine, { uid: otherUid }), false);
    assert.ok(existsSync(mine));
    const file = join(root, "file");
    writeFileSync(file, "x");
    assert.equal(isPrivateDir(file), false);
    assert.equal(isPrivateDir(join(root, "missing")), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
