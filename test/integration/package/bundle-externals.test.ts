/*
 * What the bundled `seat` (dist/cli/) loads from node_modules is resolved from the grok-seat package's own folder,
 * for our code and for the SDKs bundled inside alike (the MCP SDK's `import "ajv"` included). npm promises only a
 * package's own dependencies there: a package the bundle imports that is not one (a devDependency, or a dependency
 * of a bundled SDK that is not ours) loads where the install happened to hoist it and fails where it did not
 * (ERR_MODULE_NOT_FOUND in a user's tree). So every package the bundle imports is one of package.json's
 * dependencies or optionalDependencies.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const bundle = join(repo, "dist", "cli");

/** The packages a bundle file imports: static and dynamic imports, and `require` through createRequire. */
function importedPackages(text: string): Set<string> {
  const names = new Set<string>();
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s*"([^"]+)"/gms),
    ...text.matchAll(/^\s*import\s*"([^"]+)"/gm),
    ...text.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
    ...text.matchAll(/\brequire\d*\(\s*"([^"]+)"\s*\)/g),
  ].map((m) => m[1]!);
  for (const specifier of specifiers) {
    if (specifier.startsWith(".") || specifier.startsWith("node:") || builtinModules.includes(specifier)) continue;
    const parts = specifier.split("/");
    names.add(specifier.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return names;
}

function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => join(e.parentPath, e.name));
}

test("every package the bundled seat imports is a dependency of grok-seat (resolvable from the package in any install)", () => {
  const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]);
  const imported = new Set<string>();
  const by = new Map<string, string>();
  for (const file of bundleFiles(bundle)) {
    for (const name of importedPackages(readFileSync(file, "utf8"))) {
      imported.add(name);
      if (!by.has(name)) by.set(name, file.slice(repo.length));
    }
  }
  // The scan sees each kind of import: a static one (ioredis), a bundled SDK's (ajv), a createRequire (better-sqlite3).
  for (const seen of ["ioredis", "ajv", "better-sqlite3"]) assert.ok(imported.has(seen), `the scan saw ${seen}`);
  const undeclared = [...imported].filter((name) => !declared.has(name)).map((name) => `${name} (${by.get(name)})`);
  assert.deepEqual(undeclared, [], "packages the bundle imports that package.json does not depend on");
});

test("the scan reads every form of import the bundle uses, and nothing relative or built in", () => {
  const text = [
    'import { Queue } from "bullmq";',
    'import {\n  a,\n  b\n} from "@bull-board/api/bullMQAdapter";',
    'import "side-effect-pkg";',
    'export { x } from "re-exported";',
    'const m = await import("dynamic-pkg");',
    'const Sqlite = require2("native-addon");',
    'import { join } from "node:path";',
    'import fs from "fs";',
    'import { c } from "./chunks/chunk-ABC.js";',
  ].join("\n");
  assert.deepEqual([...importedPackages(text)].sort(), [
    "@bull-board/api",
    "bullmq",
    "dynamic-pkg",
    "native-addon",
    "re-exported",
    "side-effect-pkg",
  ]);
});
