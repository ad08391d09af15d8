/*
 * scripts/check-examples.mjs (issue 15 §1): every fenced code block in README.md and docs/ is byte-identical to
 * a file under examples/. Run on this repository (so `npm test` fails when a doc drifts from its example) and
 * on small temp trees that show what it refuses.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const script = join(repo, "scripts", "check-examples.mjs");

function check(root: string) {
  const run = spawnSync(process.execPath, [script, "--root", root], { encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "check-examples-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test("every code block of this repository's README.md and docs/ is a file under examples/", () => {
  const run = check(repo);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /all \d+ code blocks in \d+ files match/);
});

test("a block that differs from its example by one byte fails, naming the document and line", (t) => {
  const root = tree({
    "README.md": "# x\n\ntext\n\n```ts\nconst a = 1;\n```\n",
    "docs/guide.md": "```sh\nnpx seat demo\n```\n",
    "examples/a.ts": "const a = 2;\n",
    "examples/demo.sh": "npx seat demo\n",
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const run = check(root);
  assert.equal(run.status, 1);
  assert.match(run.stderr, /^README\.md:5: this ```ts block is not byte-identical/m);
  assert.doesNotMatch(run.stderr, /docs\/guide\.md/, "the matching block in docs/ passes");
  assert.match(run.stderr, /1 of 2 code blocks drifted/);
});

test("identical blocks pass; a block never closed and a file with no examples/ directory fail", (t) => {
  const good = tree({ "README.md": "````md\n```\ninner\n```\n````\n", "examples/nested.md": "```\ninner\n```\n" });
  const open = tree({ "README.md": "```ts\nconst a = 1;\n", "examples/a.ts": "const a = 1;\n" });
  const none = tree({ "docs/x.md": "```\nsomething\n```\n" });
  t.after(() => [good, open, none].forEach((root) => rmSync(root, { recursive: true, force: true })));
  assert.equal(check(good).status, 0, check(good).stderr);
  const unclosed = check(open);
  assert.equal(unclosed.status, 1);
  assert.match(unclosed.stderr, /README\.md:1: the code block is never closed/);
  const missing = check(none);
  assert.equal(missing.status, 1);
  assert.match(missing.stderr, /docs\/x\.md:1:/);
});
