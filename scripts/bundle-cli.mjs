// Bundles the `seat` command (dist/src/cli/main.js and what it imports) into dist/cli/: seat.js and the chunks its
// lazily loaded verbs and rooms become. Our ~120 modules and the ~100 files of the protocol SDKs and zod, resolved
// and linked one by one at every `seat` start, become a few files (BENCHMARKS.md, P17). Run by `npm run build`.
//
// Inside: our code, the ACP and MCP SDKs and zod, together, so the one zod that builds `seat mcp`'s tool schemas is
// the one the MCP SDK reads them with. Outside, loaded from node_modules as before: every other package; among them
// native addons and packages that read their own files (better-sqlite3, bullmq's Lua scripts, bull-board's pages).
// Files a module finds on disk (the reaper, the seat controller, the MCP tool server, the bundled skill) are found
// from dist/ (src/internal/package-files.ts), so they are the compiled tree's own. The library (`import "grok-seat"`)
// is not bundled: it shares its dependencies with the program that imports it.
import { build } from "esbuild";

const BUNDLED_PACKAGES = ["@agentclientprotocol/sdk", "@modelcontextprotocol/sdk", "zod", "zod-to-json-schema"];

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
