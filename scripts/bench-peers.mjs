// Installs the benchmark peers (acpx, pinned) into .cache/bench-peers before `npm run bench` moves itself
// into a loopback-only namespace, where npm could not reach the registry. Never part of `npm ci`.
import { existsSync, mkdirSync } from "node:fs";
import { spawnSync } from "node:child_process";

const root = ".cache/bench-peers";
const version = "0.19.1";
if (existsSync(`${root}/node_modules/acpx/package.json`)) process.exit(0);
mkdirSync(root, { recursive: true });
const npm = spawnSync(
  "npm",
  ["install", "--prefix", root, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", `acpx@${version}`],
  {
    stdio: "inherit",
    timeout: 300_000,
  },
);
if (npm.status !== 0)
  console.error(`bench-peers: could not install acpx@${version}; P1 will report acpx as unavailable`);
