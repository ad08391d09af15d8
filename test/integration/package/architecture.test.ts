/*
 * Rooms and floors: scripts/rooms.mjs reads every import of src/ and checks it against the rooms table in
 * docs/architecture.md. Run on this repository (0 imports up, no circle across rooms, no import past a front
 * door that the doors table does not list) and on small temp trees that show what it refuses.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const script = join(repo, "scripts", "rooms.mjs");

interface Result {
  counts: { up: number; circles: number; pastDoor: number };
  undeclared: string[];
  badLines: string[];
  staleExceptions: string[];
  allowedPastDoor: string[];
  up: { from: string; to: string; why: string }[];
  circles: string[][];
  pastDoor: { from: string; to: string }[];
}

function check(root: string): { status: number | null; result: Result | undefined; stderr: string } {
  const run = spawnSync(process.execPath, [script, "--root", root, "--json"], { encoding: "utf8" });
  return {
    status: run.status,
    result: run.stdout ? (JSON.parse(run.stdout) as Result) : undefined,
    stderr: run.stderr,
  };
}

const TABLE = [
  "<!-- rooms:begin -->",
  "| floor | room | holds | may import |",
  "|---|---|---|---|",
  "| 0 | `low/` | the bottom | — |",
  "| 1 | `mid/` | the middle | `low/` |",
  "| 2 | `high/` | the top | `low/`, `mid/` |",
  "| 3 | `later/` | declared, no files yet | `high/` |",
  "<!-- rooms:end -->",
  "<!-- doors:begin -->",
  "| from | to | why |",
  "|---|---|---|",
  "<!-- doors:end -->",
].join("\n");

function tree(t: { after(fn: () => void): void }, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "gs-rooms-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const all: Record<string, string> = {
    "docs/architecture.md": `# rooms\n\n${TABLE}\n`,
    "src/low/index.ts": 'export { a } from "./a.js";\n',
    "src/low/a.ts": "export const a = 1;\n",
    "src/mid/index.ts": 'import { a } from "../low/index.js";\nexport const m = a;\n',
    "src/high/index.ts": 'import { m } from "../mid/index.js";\nexport const h = m;\n',
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test("this repository's imports keep the floors: 0 up, no circle across rooms, no undeclared import past a front door", () => {
  const { status, result, stderr } = check(repo);
  assert.ok(result, stderr);
  assert.deepEqual(
    {
      counts: result.counts,
      undeclared: result.undeclared,
      badLines: result.badLines,
      staleExceptions: result.staleExceptions,
    },
    { counts: { up: 0, circles: 0, pastDoor: 0 }, undeclared: [], badLines: [], staleExceptions: [] },
    JSON.stringify({ up: result.up, circles: result.circles, pastDoor: result.pastDoor }, null, 2),
  );
  assert.equal(status, 0, stderr);
});

test("this repository reaches no other folder's file past its front door: the doors table allows none", () => {
  // Each room's shape follows how it is loaded (a part that loads apart is a room of its own), so no import needs
  // an exception; a new one would have to be listed with a reason (the test above) and fails here.
  const { result, stderr } = check(repo);
  assert.ok(result, stderr);
  assert.deepEqual(result.allowedPastDoor, []);
});

test("a tree that keeps its floors passes, a declared room with no files included", (t) => {
  const { status, result } = check(tree(t, {}));
  assert.equal(status, 0);
  assert.deepEqual(result?.counts, { up: 0, circles: 0, pastDoor: 0 });
});

test("an import up a floor fails and names the file, a type-only one included", (t) => {
  const { status, result } = check(
    tree(t, { "src/low/b.ts": 'import type { h } from "../high/index.js";\nexport type B = typeof h;\n' }),
  );
  assert.equal(status, 1);
  assert.deepEqual(
    result?.up.map((e) => [e.from, e.to]),
    [["low/b.ts", "high/index.ts"]],
  );
});

test("a room importing one below it that its line does not list fails", (t) => {
  const narrow = TABLE.replace("| `low/`, `mid/` |", "| `mid/` |");
  const { status, result } = check(
    tree(t, {
      "docs/architecture.md": `# rooms\n\n${narrow}\n`,
      "src/high/e.ts": 'import { a } from "../low/index.js";\nexport const e = a;\n',
    }),
  );
  assert.equal(status, 1);
  assert.deepEqual(result?.up, [{ from: "high/e.ts", to: "low/index.ts", why: "high's line does not list low" }]);
});

test("files that import each other round a circle across rooms fail, and so does a folder no line declares", (t) => {
  const { status, result } = check(
    tree(t, {
      "src/low/a.ts": 'import { x } from "../stray/index.js";\nexport const a = x;\n',
      "src/stray/index.ts": 'import { a } from "../low/index.js";\nexport const x = () => a;\n',
    }),
  );
  assert.equal(status, 1);
  assert.deepEqual(result?.undeclared, ["stray"]);
  assert.deepEqual(result?.circles, [["low/a.ts", "low/index.ts", "stray/index.ts"]]);
});

test("an import past another room's front door fails unless the doors table lists it with a reason", (t) => {
  const past = { "src/mid/d.ts": 'import { a } from "../low/a.js";\nexport const d = a;\n' };
  const refused = check(tree(t, past));
  assert.equal(refused.status, 1);
  assert.deepEqual(refused.result?.pastDoor, [{ from: "mid/d.ts", to: "low/a.ts" }]);
  const listed = TABLE.replace(
    "| from | to | why |\n|---|---|---|\n",
    "| from | to | why |\n|---|---|---|\n| `mid/d.ts` | `low/a.ts` | loaded on use |\n",
  );
  const allowed = check(tree(t, { ...past, "docs/architecture.md": `# rooms\n\n${listed}\n` }));
  assert.equal(allowed.status, 0, JSON.stringify(allowed.result));
  assert.deepEqual(allowed.result?.allowedPastDoor, ["mid/d.ts → low/a.ts"]);
});
