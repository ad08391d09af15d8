// Copies non-TypeScript assets that live beside the sources (bundled skills, JSON data)
// into dist/ with the same relative paths, so compiled modules find them next to themselves.
import { cpSync, readdirSync, statSync, mkdirSync } from "node:fs";
import { join, relative, dirname } from "node:path";

const roots = ["src", "test"];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (!path.endsWith(".ts")) {
      const target = join("dist", relative(".", path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}
for (const root of roots) {
  try {
    statSync(root);
  } catch {
    continue;
  }
  walk(root);
}
