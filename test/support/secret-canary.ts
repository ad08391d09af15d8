/*
 * Secret canary helpers for tests and R5: a separate sampler process that reads `/proc/<pid>/cmdline` of
 * every process over and over (so a blocking spawnSync in the caller cannot pause it), and a recursive
 * byte grep of directories.
 * Owns: startArgvSampler() and filesHolding(). Run directly (`node secret-canary.js`) it is the sampler:
 *   it reads the canary from its environment (never its argv), loops until SIGTERM, then prints
 *   {samples, hits} as one JSON line.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SELF = fileURLToPath(import.meta.url);

/** What the sampler saw: how many full /proc sweeps, and `<pid>: <argv>` for each process whose argv held the canary. */
export interface ArgvSample {
  samples: number;
  hits: string[];
}

/** Starts the sampler process; stop() ends it and resolves what it saw. */
export function startArgvSampler(canary: string): { stop(): Promise<ArgvSample> } {
  const child = spawn(process.execPath, [SELF], { env: { GS_CANARY: canary }, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  return {
    async stop() {
      child.kill("SIGTERM");
      await closed;
      return JSON.parse(
        out.trim().split("\n").pop() || '{"samples":0,"hits":["the sampler printed nothing"]}',
      ) as ArgvSample;
    },
  };
}

/** Files under `roots` (recursively, symlinks not followed) whose bytes contain `needle`. */
export function filesHolding(roots: readonly string[], needle: string): { checked: number; hits: string[] } {
  const hits: string[] = [];
  let checked = 0;
  const bytes = Buffer.from(needle);
  const visit = (path: string): void => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (stat.isFile()) {
      checked += 1;
      try {
        if (readFileSync(path).includes(bytes)) hits.push(path);
      } catch {
        // unreadable or vanished
      }
    }
  };
  for (const root of roots) if (existsSync(root)) visit(root);
  return { checked, hits };
}

function sweep(canary: string, hits: Set<string>): void {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "latin1");
      if (argv.includes(canary)) hits.add(`${entry}: ${argv.replace(/\0/g, " ").slice(0, 200)}`);
    } catch {
      // exited meanwhile
    }
  }
}

if (process.argv[1] === SELF) {
  const canary = process.env.GS_CANARY ?? "";
  if (!canary) process.exit(2);
  const hits = new Set<string>();
  let samples = 0;
  let running = true;
  process.on("SIGTERM", () => (running = false));
  const loop = (): void => {
    if (!running) {
      process.stdout.write(`${JSON.stringify({ samples, hits: [...hits] })}\n`);
      return;
    }
    sweep(canary, hits);
    samples += 1;
    setImmediate(loop);
  };
  loop();
}
