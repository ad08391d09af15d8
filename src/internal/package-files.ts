/*
 * Package files: where a file of this package's build lies on disk, asked from any module of the package.
 * Owns: builtFile(), a path under the package's dist/ (e.g. builtFile("src", "grok", "reaper-main.js")).
 * Why not `new URL("./x.js", import.meta.url)`: the `seat` command is one bundle (dist/cli/, made by
 *   scripts/bundle-cli.mjs) whose chunks hold modules of every folder, so a module's own URL no longer says where
 *   its siblings are. Both the compiled tree (dist/src/…) and the bundle (dist/cli/…) lie in the package's dist/.
 * Invariant: a module loaded from its TypeScript source (src/internal/) answers for the dist/ beside src/; a built one
 *   for the last `dist` folder on its path (nothing inside dist/ is named dist). No I/O, nothing at import.
 */
import { dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The absolute path of `dist/<segments…>` in this package. */
export function builtFile(...segments: string[]): string {
  const here = fileURLToPath(import.meta.url);
  const at = here.endsWith(".ts") ? -1 : here.lastIndexOf(`${sep}dist${sep}`);
  const dist = at >= 0 ? here.slice(0, at + `${sep}dist`.length) : join(dirname(here), "..", "..", "dist");
  return join(dist, ...segments);
}
