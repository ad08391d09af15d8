/*
 * Bench report helpers: statistics, the machine description, markdown tables and result files.
 * Owns: percentile/median, ratio formatting, `bench/results/<name>.json`, and the machine block that heads
 *   BENCHMARKS.md and RELIABILITY.md.
 * Does not own: any measurement (bench/stream.ts, live.ts, fence.ts, scale.ts, torture*.ts).
 * Invariant: figures are compared as ratios against a baseline measured in the same run; absolute times are
 *   kept only as context, because the machines are shared and noisy.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (bench/*.ts compiles to dist/bench/*.js). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Where result JSON files are committed. */
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");

/** The p-th percentile (nearest rank) of unsorted samples; 0 for none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return 0;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** The median of unsorted samples. */
export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** A number rounded for a table: 3 significant digits, no exponent. */
export function fmt(value: number | undefined, digits = 3): string {
  if (value === undefined || !Number.isFinite(value)) return "—";
  if (value === 0) return "0";
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return value.toFixed(Math.min(decimals, 6));
}

/** A ratio as `1.02×`. */
export function ratio(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? "—" : `${value.toFixed(2)}×`;
}

/** A markdown table. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The machine a run happened on: what a reader needs to weigh the absolute numbers. */
export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  kernel: string;
  date: string;
  /** The code measured: `git rev-parse --short HEAD`, with `+dirty` when the work tree has changes. */
  commit: string;
}

/** The commit this checkout is on, `+dirty` when tracked or untracked files differ from it; "unknown" without git. */
export function gitCommit(): string {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: REPO_ROOT, encoding: "utf8" });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return "unknown";
  const dirty = git("status", "--porcelain", "--untracked-files=normal");
  return `${head.stdout.trim()}${dirty.status !== 0 || dirty.stdout.trim() !== "" ? "+dirty" : ""}`;
}

/** Describes this machine (no host names, users or paths). */
export function machineInfo(): MachineInfo {
  const cpu = cpus();
  return {
    cores: cpu.length,
    cpuModel: cpu[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    kernel: `Linux ${release()}`,
    date: new Date().toISOString(),
    commit: gitCommit(),
  };
}

/** The machine as one markdown line. */
export function machineLine(m: MachineInfo): string {
  return `${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}, ${m.kernel}; commit ${m.commit ?? "unknown"}; run ${m.date}.`;
}

/** The line under each table naming the code and time it was measured on (older results lack the commit). */
export function stampLine(m: Pick<MachineInfo, "commit" | "date">, finished?: string): string {
  return `_Measured on commit \`${m.commit ?? "unknown (not recorded)"}\`, started ${m.date}${finished ? `, finished ${finished}` : ""}._`;
}

/** Writes `bench/results/<name>.json` with the machine attached; returns its repo-relative path. */
export function writeResult(name: string, data: unknown, machine: MachineInfo = machineInfo()): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    join(RESULTS_DIR, `${name}.json`),
    `${JSON.stringify({ name, machine, ...(data as object) }, null, 2)}\n`,
  );
  return `bench/results/${name}.json`;
}

/** Parses `--flag` and `--name=value` arguments. */
export function parseFlags(argv: readonly string[]): Map<string, string | true> {
  const flags = new Map<string, string | true>();
  for (const arg of argv) {
    if (!arg.startsWith("--")) continue;
    const eq = arg.indexOf("=");
    if (eq === -1) flags.set(arg.slice(2), true);
    else flags.set(arg.slice(2, eq), arg.slice(eq + 1));
  }
  return flags;
}
