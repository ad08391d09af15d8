#!/usr/bin/env node
// Checks that every fenced code block in README.md and docs/*.md is byte-identical to a file under examples/
// (issue 15 §1: docs show the examples CI compiles and runs; they never drift from them).
// Usage: node scripts/check-examples.mjs [--root DIR]. Exit 0 when every block matches, 1 naming each block
// (file:line) that matches no example, 2 on a usage error. No dependencies: runs before and after a build.
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { join, relative } from "node:path";

function usage(message) {
  process.stderr.write(`check-examples: ${message}\nUsage: node scripts/check-examples.mjs [--root DIR]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
let root = process.cwd();
while (args.length > 0) {
  const arg = args.shift();
  if (arg === "--root" && args.length > 0) root = args.shift();
  else usage(`unknown argument ${JSON.stringify(arg)}`);
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The fenced blocks of a Markdown text: opening line number, info string, content (each line + "\n"). */
function fencedBlocks(text) {
  const blocks = [];
  let open;
  text.split("\n").forEach((line, index) => {
    const fence = /^(`{3,}|~{3,})(.*)$/.exec(line);
    if (open) {
      if (fence && fence[1][0] === open.marker[0] && fence[1].length >= open.marker.length && fence[2].trim() === "") {
        blocks.push({ line: open.line, info: open.info, content: open.lines.map((l) => `${l}\n`).join("") });
        open = undefined;
      } else open.lines.push(line);
    } else if (fence) open = { marker: fence[1], info: fence[2].trim(), line: index + 1, lines: [] };
  });
  if (open) blocks.push({ line: open.line, info: open.info, content: null });
  return blocks;
}

const docs = [join(root, "README.md"), ...filesUnder(join(root, "docs")).filter((p) => p.endsWith(".md"))].filter((p) =>
  existsSync(p),
);
const examples = new Map(filesUnder(join(root, "examples")).map((p) => [readFileSync(p, "utf8"), relative(root, p)]));
let blocks = 0;
const problems = [];
for (const doc of docs) {
  for (const block of fencedBlocks(readFileSync(doc, "utf8"))) {
    blocks += 1;
    const where = `${relative(root, doc)}:${block.line}`;
    if (block.content === null) problems.push(`${where}: the code block is never closed`);
    else if (!examples.has(block.content))
      problems.push(
        `${where}: this \`\`\`${block.info} block is not byte-identical to any file under examples/ (copy the file's content, or update the file)`,
      );
  }
}
if (problems.length > 0) {
  process.stderr.write(
    `${problems.join("\n")}\ncheck-examples: ${problems.length} of ${blocks} code blocks drifted from examples/\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `check-examples: all ${blocks} code blocks in ${docs.length} files match a file under examples/\n`,
);
