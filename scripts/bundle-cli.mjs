// Bundles the `seat` command (dist/src/cli/main.js and what it imports) into dist/cli/: seat.js and the chunks its
// lazily loaded verbs and rooms become. One file instead of ~120 modules, and the ACP SDK inside it, cut what every
// `seat` start spends resolving and linking modules (BENCHMARKS.md, P17). Run by `npm run build` after tsc.
//
// What stays outside, loaded from node_modules as before: every other package. zod, because `seat mcp` hands zod
// schemas to the MCP SDK, which must see the same zod; native addons and packages that read their own files
// (better-sqlite3, bullmq's Lua scripts, bull-board's pages). Files a module finds on disk (the reaper, the seat
// controller, the MCP tool server, the bundled skill) are found from the package root (src/internal/package-files.ts),
// so they are the compiled tree's own.
import { build } from "esbuild";

const BUNDLED_PACKAGES = ["@agentclientprotocol/sdk"];

const inside = (path) => BUNDLED_PACKAGES.some((name) => path === name || path.startsWith(`${name}/`));

await build({
  entryPoints: { seat: "dist/src/cli/main.js" },
  outdir: "dist/cli",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  plugins: [
    {
      name: "packages-outside",
      setup(b) {
        // A bare specifier (a package or a node: builtin) stays an import unless it is one of BUNDLED_PACKAGES.
        b.onResolve({ filter: /^[^./]/ }, (args) => (inside(args.path) ? undefined : { external: true }));
      },
    },
  ],
});
