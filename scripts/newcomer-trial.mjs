#!/usr/bin/env node
// The newcomer trial (issue 15 §10): what a new user meets in the first hour from npm, on every CI run.
// build, `npm pack`, install the tarball into an empty temp project, then: what ships, links that work
// from the package, .d.ts files that import only dependencies, `npx seat --help`, `npx seat demo`, every
// example typechecked as a strict consumer against the INSTALLED package and run offline against the mock
// (scripts/trial-run-examples.mjs), and `npx seat agents --json | head -1` exiting quietly.
// Any failed step fails the run (exit 1) and names the step. Env: GROK_SEAT_REQUIRE_NETNS=1 makes running the
// examples outside `unshare -rn` a failure; TRIAL_KEEP=1 keeps the temp project.
// Install: `npm install --prefer-offline` from the npm cache `npm ci` warmed (CI may reach the registry for a
// miss), with install scripts off; better-sqlite3's native addon is reused from this checkout when it is the same
// version for the same Node (building it from source takes minutes on 2 cores), else rebuilt in the project.
import { spawnSync } from "node:child_process";
import { builtinModules } from "node:module";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(join(tmpdir(), "grok-seat-trial-"));
const app = join(work, "app");
const pkgDir = join(app, "node_modules", "grok-seat");
const t0 = Date.now();
let current = "setup";

function say(line) {
  process.stdout.write(`${line}\n`);
}

function fail(message) {
  process.stderr.write(`\nnewcomer trial FAILED at step "${current}": ${message}\n(temp project kept at ${work})\n`);
  process.exit(1);
}

async function step(name, body) {
  current = name;
  const started = Date.now();
  say(`== trial: ${name}`);
  await body();
  say(`   (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/** Runs a command; fails the step on a non-zero exit, printing its output. */
function sh(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: app,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
    ...options,
  });
  if (result.status !== 0) {
    fail(
      `\`${[command, ...args].join(" ")}\` exited ${result.status ?? result.signal}\n${(result.stdout ?? "").slice(-4000)}${(result.stderr ?? "").slice(-4000)}`,
    );
  }
  return result;
}

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
let tarball = "";

await step("build and npm pack", () => {
  // `npm pack` alone would build too (prepack); building first keeps the build's output out of pack's JSON.
  sh(npm, ["run", "build", "--silent"], { cwd: repo });
  const out = sh(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", work], { cwd: repo });
  const [info] = JSON.parse(out.stdout.slice(out.stdout.indexOf("[")));
  tarball = join(work, info.filename);
  const files = info.files.map((f) => f.path);
  const leaked = files.filter((f) => /\.test\.|\.map$/.test(f) || f.startsWith("test/") || f.startsWith("src/"));
  if (leaked.length > 0) fail(`the tarball carries tests, maps or sources: ${leaked.slice(0, 10).join(", ")}`);
  // A .js that names a map the tarball lacks sends debuggers and bundlers after a missing file.
  const shipped = new Set(files);
  const dangling = files
    .filter((f) => /\.[cm]?js$/.test(f))
    .flatMap((f) =>
      [...readFileSync(join(repo, f), "utf8").matchAll(/^\/\/[#@] sourceMappingURL=(\S+)\s*$/gm)]
        .map(([, url]) => url)
        .filter(
          (url) =>
            !url.startsWith("data:") && !shipped.has(join(dirname(f), decodeURIComponent(url.replace(/[?#].*$/, "")))),
        )
        .map((url) => `${f} → ${url}`),
    );
  if (dangling.length > 0)
    fail(
      `${dangling.length} packed .js file(s) reference a source map the tarball lacks: ${dangling.slice(0, 5).join(", ")}`,
    );
  const required = [
    "README.md",
    "CHANGELOG.md",
    "docs/environment.md",
    "examples/library-session.ts",
    "dist/src/index.js",
    "dist/src/index.d.ts",
    "dist/src/testing.d.ts",
    "dist/src/cli/main.js",
    "dist/cli/seat.js",
    "dist/src/skills/bundled/grok-seat/SKILL.md",
  ];
  const absent = required.filter((f) => !files.includes(f));
  if (absent.length > 0) fail(`the tarball lacks ${absent.join(", ")}`);
  say(
    `   ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(0)} kB packed, ${(info.unpackedSize / 1024).toFixed(0)} kB unpacked`,
  );
});

await step("install the tarball into an empty project", () => {
  mkdirSync(app, { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "newcomer", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  sh(npm, [
    "install",
    "--prefer-offline",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    tarball,
    "@types/node@20",
  ]);
  const ours = join(repo, "node_modules", "better-sqlite3");
  const theirs = join(app, "node_modules", "better-sqlite3");
  const version = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const addon = join("build", "Release", "better_sqlite3.node");
  const loads = () =>
    spawnSync(process.execPath, ["-e", "const D = require('better-sqlite3'); new D(':memory:').close()"], {
      cwd: app,
      stdio: "ignore",
    }).status === 0;
  if (existsSync(join(ours, addon)) && version(ours) === version(theirs)) {
    mkdirSync(join(theirs, "build", "Release"), { recursive: true });
    copyFileSync(join(ours, addon), join(theirs, addon));
  }
  if (!loads()) {
    say(
      `   better-sqlite3 ${version(theirs)}: this checkout's addon does not fit (version or Node ABI); building it (slow)`,
    );
    sh(npm, ["rebuild", "better-sqlite3"]);
  }
  sh(process.execPath, ["-e", "const D = require('better-sqlite3'); new D(':memory:').close()"]);
});

await step("links in the shipped README and docs resolve inside the package", () => {
  const docs = [join(pkgDir, "README.md"), ...filesUnder(join(pkgDir, "docs")).filter((p) => p.endsWith(".md"))];
  const broken = [];
  for (const doc of docs) {
    for (const [, target] of readFileSync(doc, "utf8").matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
      const path = resolve(dirname(doc), target.replace(/#.*$/, ""));
      if (!existsSync(path)) broken.push(`${relative(pkgDir, doc)} → ${target}`);
    }
  }
  if (broken.length > 0) fail(`links to files that do not ship:\n  ${broken.join("\n  ")}`);
});

await step("the published .d.ts files import only dependencies", () => {
  const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const allowed = new Set(Object.keys(manifest.dependencies ?? {}));
  // A dependency carries its own types when its manifest names them (or it has an index.d.ts).
  const shipsTypes = (name) => {
    const dir = join(app, "node_modules", name);
    const own = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    return Boolean(
      own.types ||
        own.typings ||
        JSON.stringify(own.exports ?? {}).includes('"types"') ||
        existsSync(join(dir, "index.d.ts")),
    );
  };
  const bad = [];
  for (const file of filesUnder(join(pkgDir, "dist")).filter((p) => p.endsWith(".d.ts"))) {
    // Module specifiers only: an import or export statement's `from "…"` (a line of its own in emitted .d.ts) and
    // `import("…")` types — never a word "from" that ends a string literal, such as an error code's description.
    const text = readFileSync(file, "utf8");
    const specs = [
      ...[...text.matchAll(/^\s*(?:import|export)\b[^\n]*?\sfrom\s*["']([^"']+)["']/gm)].map((m) => m[1]),
      ...[...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm)].map((m) => m[1]),
      ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
    ];
    for (const spec of specs) {
      if (spec.startsWith(".") || spec.startsWith("node:") || builtinModules.includes(spec)) continue;
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      if (!allowed.has(name)) bad.push(`${relative(pkgDir, file)} imports ${spec}, not a dependency`);
      else if (!shipsTypes(name) && !allowed.has(`@types/${name.replace(/^@/, "").replace("/", "__")}`)) {
        bad.push(
          `${relative(pkgDir, file)} imports ${spec}, whose types are not a dependency (TS7016 for a strict consumer)`,
        );
      }
    }
  }
  if (bad.length > 0) fail(`a type from outside the dependencies leaks into the public API:\n  ${bad.join("\n  ")}`);
});

await step("npx seat --help", () => {
  const out = sh(npx, ["--no-install", "seat", "--help"]);
  for (const needed of ["Usage: seat", "run", "demo"]) {
    if (!(out.stdout + out.stderr).includes(needed))
      fail(`the help lacks ${JSON.stringify(needed)}:\n${out.stdout}${out.stderr}`);
  }
});

await step("npx seat demo", () => {
  const out = sh(npx, ["--no-install", "seat", "demo"]);
  if (!/OFFLINE DEMO MODE/.test(out.stdout + out.stderr))
    fail(`the demo did not label itself:\n${out.stdout}${out.stderr}`);
  say(
    `   ${
      (out.stdout + out.stderr)
        .trim()
        .split("\n")
        .filter((l) => /done:/.test(l))
        .join("") || "(demo ran)"
    }`,
  );
});

await step("typecheck every example as a strict consumer against the installed package", () => {
  cpSync(join(repo, "examples"), join(app, "examples"), { recursive: true });
  writeFileSync(
    join(app, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          rootDir: "examples",
          outDir: "out",
        },
        include: ["examples/**/*.ts"],
      },
      null,
      2,
    )}\n`,
  );
  const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
  sh(process.execPath, [tsc, "-p", "tsconfig.json"]);
  say(
    `   ${filesUnder(join(app, "examples")).filter((p) => p.endsWith(".ts")).length} examples compiled (strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess, skipLibCheck false)`,
  );
});

await step("run every example offline against the mock", () => {
  copyFileSync(join(repo, "scripts", "trial-run-examples.mjs"), join(app, "trial-run-examples.mjs"));
  const argv = [process.execPath, "trial-run-examples.mjs", "out", "examples"];
  const canUnshare =
    process.env.GROK_SEAT_NETNS !== "1" && spawnSync("unshare", ["-rn", "true"], { stdio: "ignore" }).status === 0;
  if (!canUnshare && process.env.GROK_SEAT_NETNS !== "1") {
    if (process.env.GROK_SEAT_REQUIRE_NETNS === "1")
      fail("`unshare -rn` is not available and GROK_SEAT_REQUIRE_NETNS=1");
    say("   (user+network namespaces are not available: running on the host, loopback only)");
  }
  const [command, ...args] = canUnshare
    ? ["unshare", "-rn", "sh", "-c", 'ip link set lo up 2>/dev/null || true; exec "$@"', "sh", ...argv]
    : argv;
  const out = sh(command, args, {
    env: { ...process.env, GROK_SEAT_NETNS: canUnshare ? "1" : (process.env.GROK_SEAT_NETNS ?? "") },
    timeout: 300_000,
  });
  process.stdout.write(out.stdout);
});

await step("npx seat agents --json | head -1 exits quietly (issue 15 §4 pipe fix)", () => {
  const out = spawnSync(
    "bash",
    [
      "-c",
      'npx --no-install seat agents --json 2>"$1" | head -1; echo "seat-status=${PIPESTATUS[0]}"',
      "bash",
      join(work, "pipe-stderr.txt"),
    ],
    { cwd: app, encoding: "utf8", timeout: 120_000 },
  );
  const status = /seat-status=(\d+)/.exec(out.stdout)?.[1];
  const stderr = readFileSync(join(work, "pipe-stderr.txt"), "utf8");
  const first = out.stdout.split("\n")[0] ?? "";
  let json = true;
  try {
    JSON.parse(first);
  } catch {
    json = false;
  }
  // A closed stdout ends the CLI the way Unix tools end: quietly, status 0 or 141 (128 + SIGPIPE).
  if (!json || !["0", "141"].includes(status ?? "") || stderr.trim() !== "") {
    fail(
      `PIPE CHECK (needs the issue 15 §4 fix): first line ${JSON.stringify(first.slice(0, 200))}, seat exit ${status}, stderr:\n${stderr.slice(0, 2000)}`,
    );
  }
});

say(`== newcomer trial passed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (process.env.TRIAL_KEEP !== "1") rmSync(work, { recursive: true, force: true });
else say(`   temp project kept at ${work}`);
