#!/usr/bin/env node
// Rooms and floors: reads every import of src/**/*.ts (tests aside) and checks it against the rooms table in
// docs/architecture.md (between the `rooms:begin` / `rooms:end` markers): each room's floor and the rooms it may
// import. Counts three things and fails (exit 1) when any is not 0:
//   up          an import of a room that is not on a lower floor, or that its line does not list;
//   circles     groups of files that import each other round a circle spanning two or more rooms;
//   past-door   an import of another folder's file other than its front door (index.ts), unless the
//               `doors:begin` / `doors:end` table lists it with a reason. `internal/` has no front door:
//               its helpers are imported file by file. `--json` names the listed ones too (allowedPastDoor).
// Type-only imports count: a type that crosses a floor the wrong way is the same coupling, only unenforced.
// A declared room with no files yet is fine; a folder under src/ that no line declares is an error.
// Usage: node scripts/rooms.mjs [--root DIR] [--json] [--graph]. Exit 2 on a usage error or an unreadable table.
// Needs only Node and the TypeScript compiler the project builds with (its import scanner, ts.preProcessFile).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, normalize, relative, sep } from "node:path";

function usage(message) {
  process.stderr.write(`rooms: ${message}\nUsage: node scripts/rooms.mjs [--root DIR] [--json] [--graph]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let root = process.cwd();
let json = false;
let graph = false;
while (args.length > 0) {
  const arg = args.shift();
  if (arg === "--root" && args.length > 0) root = args.shift();
  else if (arg === "--json") json = true;
  else if (arg === "--graph") graph = true;
  else usage(`unknown argument ${JSON.stringify(arg)}`);
}

const ts = createRequire(import.meta.url)("typescript");
const srcDir = join(root, "src");
if (!existsSync(srcDir) || !existsSync(join(root, "docs", "architecture.md")))
  usage(`${root} has no src/ or no docs/architecture.md`);
const posix = (p) => p.split(sep).join("/");

/** Every non-test .ts file under src/, as a path relative to src/ with forward slashes. */
function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The room a src-relative file belongs to: its top folder, or the file's own name for a top-level file. */
function roomOf(file) {
  const slash = file.indexOf("/");
  return slash < 0 ? file.replace(/\.ts$/, "") : file.slice(0, slash);
}

/** A room's front door: `x/index.ts` for a folder, the file itself for a top-level file. */
function doorOf(room) {
  return existsSync(join(srcDir, `${room}.ts`)) ? `${room}.ts` : `${room}/index.ts`;
}

/** The rows of the Markdown table between `<!-- NAME:begin -->` and `<!-- NAME:end -->`, cells trimmed. */
function tableRows(text, name) {
  const begin = text.indexOf(`<!-- ${name}:begin -->`);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (begin < 0 || end < begin) usage(`docs/architecture.md has no ${name}:begin / ${name}:end table`);
  return text
    .slice(begin, end)
    .split("\n")
    .filter((line) => line.startsWith("|") && !/^\|\s*-/.test(line))
    .slice(1) // the header
    .map((line) =>
      line
        .slice(1, line.endsWith("|") ? -1 : undefined)
        .split("|")
        .map((cell) => cell.trim()),
    );
}

/** `internal/` → internal, `errors.ts` → errors; the names in backticks of a cell. */
function names(cell) {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\/$/, "").replace(/\.ts$/, ""));
}

const doc = readFileSync(join(root, "docs", "architecture.md"), "utf8");
/** room → { floor, mayImport: Set } */
const declared = new Map();
for (const [floor, roomCell, , mayCell] of tableRows(doc, "rooms")) {
  const [room] = names(roomCell);
  if (!room || !/^\d+$/.test(floor)) usage(`rooms table: unreadable line for ${JSON.stringify(roomCell)}`);
  if (declared.has(room)) usage(`rooms table: ${room} is declared twice`);
  declared.set(room, { floor: Number(floor), mayImport: new Set(names(mayCell ?? "")) });
}
/** "from → to" file pairs (src-relative) allowed past a front door, each with its reason. */
const doorExceptions = new Map();
for (const [fromCell, toCell, why] of tableRows(doc, "doors")) {
  const [from] = [...fromCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  const [to] = [...toCell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  if (!from || !to || !why) usage(`doors table: each line names a from file, a to file and why`);
  doorExceptions.set(`${from} → ${to}`, why);
}

const files = sourceFiles(srcDir).map((p) => posix(relative(srcDir, p)));
const fileSet = new Set(files);
/** Every import edge between src files: { from, to, typeOnly }. */
const edges = [];
for (const from of files) {
  const text = readFileSync(join(srcDir, from), "utf8");
  const info = ts.preProcessFile(text, true, true);
  for (const ref of info.importedFiles) {
    const spec = ref.fileName;
    if (!spec.startsWith(".")) continue;
    const target = posix(normalize(join(dirname(from), spec))).replace(/\.js$/, ".ts");
    if (target.startsWith("..")) continue; // outside src/ (package.json and the like)
    if (!fileSet.has(target)) continue; // a non-TS asset (skills/bundled) or a .json
    edges.push({ from, to: target });
  }
}

// Rooms: every folder and top-level file of src/ must be declared.
const undeclared = [...new Set(files.map(roomOf))].filter((room) => !declared.has(room)).sort();

// up: an import of another room that is not on a lower floor, or not on the importer's line.
const up = [];
for (const { from, to } of edges) {
  const a = roomOf(from);
  const b = roomOf(to);
  if (a === b || !declared.has(a) || !declared.has(b)) continue;
  const da = declared.get(a);
  const db = declared.get(b);
  if (db.floor >= da.floor)
    up.push({ from, to, why: `${b} (floor ${db.floor}) is not below ${a} (floor ${da.floor})` });
  else if (!da.mayImport.has(b)) up.push({ from, to, why: `${a}'s line does not list ${b}` });
}
// The table itself must point down: a line may list only rooms on lower floors.
const badLines = [];
for (const [room, { floor, mayImport }] of declared) {
  for (const other of mayImport) {
    if (!declared.has(other)) badLines.push(`${room} lists ${other}, which no line declares`);
    else if (declared.get(other).floor >= floor)
      badLines.push(`${room} (floor ${floor}) lists ${other} (floor ${declared.get(other).floor})`);
  }
}

// circles: strongly connected groups of files (Tarjan) that span two or more rooms.
const out = new Map(files.map((f) => [f, []]));
for (const { from, to } of edges) out.get(from).push(to);
const index = new Map();
const low = new Map();
const stack = [];
const onStack = new Set();
const circles = [];
let counter = 0;
function visit(v) {
  index.set(v, counter);
  low.set(v, counter);
  counter++;
  stack.push(v);
  onStack.add(v);
  for (const w of out.get(v)) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (new Set(group.map(roomOf)).size > 1) circles.push(group.sort());
  }
}
for (const f of files) if (!index.has(f)) visit(f);

// past-door: another folder's file other than its front door (internal/ has none), unless listed with a reason.
const pastDoor = [];
const usedExceptions = new Set();
for (const { from, to } of edges) {
  const a = roomOf(from);
  const b = roomOf(to);
  if (a === b || b === "internal" || to === doorOf(b)) continue;
  const key = `${from} → ${to}`;
  if (doorExceptions.has(key)) usedExceptions.add(key);
  else pastDoor.push({ from, to });
}
const staleExceptions = [...doorExceptions.keys()].filter((key) => !usedExceptions.has(key));

const floors = new Set([...declared.values()].map((d) => d.floor));
const result = {
  rooms: declared.size,
  floors: floors.size,
  files: files.length,
  imports: edges.length,
  counts: { up: up.length, circles: circles.length, pastDoor: pastDoor.length },
  undeclared,
  badLines,
  staleExceptions,
  allowedPastDoor: [...usedExceptions],
  up,
  circles,
  pastDoor,
};
if (graph) {
  // What each room imports today, for redrawing the table: room → rooms it imports.
  const byRoom = new Map();
  for (const { from, to } of edges) {
    const a = roomOf(from);
    const b = roomOf(to);
    if (a === b) continue;
    if (!byRoom.has(a)) byRoom.set(a, new Set());
    byRoom.get(a).add(b);
  }
  result.graph = Object.fromEntries([...byRoom].sort().map(([a, bs]) => [a, [...bs].sort()]));
}

const failed =
  up.length + circles.length + pastDoor.length + undeclared.length + badLines.length + staleExceptions.length > 0;
if (json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
else {
  const lines = [
    `rooms: ${result.rooms} rooms on ${result.floors} floors, ${result.files} files, ${result.imports} imports`,
    `imports up: ${up.length}`,
    ...up.map((e) => `  ${e.from} → ${e.to}: ${e.why}`),
    `circles across folders: ${circles.length}`,
    ...circles.map((c) => `  ${c.join(" ↔ ")}`),
    `past a front door: ${pastDoor.length}`,
    ...pastDoor.map((e) => `  ${e.from} → ${e.to}`),
  ];
  if (undeclared.length > 0) lines.push(`rooms no line declares: ${undeclared.join(", ")}`);
  for (const line of badLines) lines.push(`table: ${line}`);
  for (const key of staleExceptions) lines.push(`doors table: ${key} is listed but no such import exists`);
  if (graph) for (const [a, bs] of Object.entries(result.graph)) lines.push(`  ${a} → ${bs.join(", ")}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}
process.exit(failed ? 1 : 0);
