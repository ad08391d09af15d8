/*
 * sigterm-ignorer: a process tree that refuses to die politely, for kill tests.
 * Usage: node sigterm-ignorer.js [--children N] [--detach-one]
 *   Ignores SIGTERM, spawns N grandchildren that also ignore it (with --detach-one the first is setsid'd into
 *   its own session and group), waits until each says it is ready, prints {"pid","children":[…]} as one JSON
 *   line on stdout, then sleeps forever. Only SIGKILL ends it.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

process.on("SIGTERM", () => {});
process.on("SIGHUP", () => {});
const keepAlive = setInterval(() => {}, 60_000);
void keepAlive;

const argv = process.argv.slice(2);
if (argv[0] === "--leaf") {
  process.stdout.write("ready\n");
} else {
  const n = Number(argv[argv.indexOf("--children") + 1] ?? 0) || 0;
  const detachOne = argv.includes("--detach-one");
  const self = fileURLToPath(import.meta.url);
  const ready: Promise<number>[] = [];
  for (let i = 0; i < (argv.includes("--children") ? n : 0); i++) {
    const child = spawn(process.execPath, [self, "--leaf"], {
      stdio: ["ignore", "pipe", "ignore"],
      detached: detachOne && i === 0,
    });
    ready.push(
      new Promise((resolve, reject) => {
        child.once("error", reject);
        child.stdout.once("data", () => {
          child.stdout.destroy();
          resolve(child.pid!);
        });
      }),
    );
  }
  const children = await Promise.all(ready);
  process.stdout.write(`${JSON.stringify({ pid: process.pid, children })}\n`);
}
