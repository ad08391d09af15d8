/*
 * Grok binary: find the `grok` executable to run.
 * Owns: the resolution order — explicit option, GROK_BIN, PATH, then the pinned npm platform package.
 * Does not own: decompression and checksums (npm-binary.ts) or whether the binary works (version.ts probes it).
 * Invariant: an explicitly configured path (option or GROK_BIN) is never silently replaced by another binary;
 *   the npm fallback only ever yields a sha256-verified file.
 */
import { constants } from "node:fs";
import { access, readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { SeatError } from "../errors.js";
import { installBrotliBinary, PINNED_GROK_SHA256 } from "./npm-binary.js";

/** Where a resolved binary came from. */
export type GrokBinarySource = "option" | "env" | "path" | "npm";

/** A resolved grok binary. */
export interface GrokBinary {
  path: string;
  source: GrokBinarySource;
  /** The npm package version, when `source` is "npm". */
  version?: string;
}

/** Options for resolveGrokBinary. */
export interface ResolveGrokBinaryOptions {
  /** `grokCliBinaryPath`: used as-is and must be executable. */
  explicitPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Directory for the decompressed npm binary; default `node_modules/.cache/grok-seat` beside the package. */
  cacheDir?: string;
  /** Platform package to fall back to; default `@xai-official/grok-<platform>-<arch>`; null disables the npm step. */
  npmPackage?: string | null;
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function notExecutable(path: string, what: string, source: GrokBinarySource): SeatError {
  return new SeatError("GROK_NOT_FOUND", `${what} is ${path}, which is not an executable file. Fix or unset it.`, {
    context: { path, source },
  });
}

/** The default npm platform package for this machine, e.g. `@xai-official/grok-linux-x64`. */
export function defaultGrokNpmPackage(): string {
  return `@xai-official/grok-${process.platform}-${process.arch}`;
}

function candidateCacheDirs(nodeModules: string, env: NodeJS.ProcessEnv): string[] {
  const xdg =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME !== "" ? env.XDG_CACHE_HOME : join(env.HOME ?? homedir(), ".cache");
  return [join(nodeModules, ".cache", "grok-seat"), join(xdg, "grok-seat")];
}

async function resolveFromNpm(
  pkg: string,
  env: NodeJS.ProcessEnv,
  cacheDir: string | undefined,
  tried: string[],
): Promise<GrokBinary | undefined> {
  let pkgJsonPath: string;
  try {
    pkgJsonPath = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  } catch {
    tried.push(`npm package ${pkg} (not installed)`);
    return undefined;
  }
  const pkgDir = dirname(pkgJsonPath);
  const version = String((JSON.parse(await readFile(pkgJsonPath, "utf8")) as { version?: unknown }).version);
  const sha256 = PINNED_GROK_SHA256[pkg]?.[version];
  if (!sha256) {
    throw new SeatError(
      "GROK_VERSION_UNPINNED",
      `${pkg}@${version} is installed at ${pkgDir}, but grok-seat has no recorded sha256 for it. Install the pinned version or set GROK_BIN.`,
      { context: { package: pkg, version, pkgDir } },
    );
  }
  const source = join(pkgDir, "bin", "grok.br");
  // The package dir is <node_modules>/@xai-official/<name>; its cache sits in <node_modules>/.cache.
  const dirs = cacheDir ? [cacheDir] : candidateCacheDirs(dirname(dirname(pkgDir)), env);
  let lastError: unknown;
  for (const dir of dirs) {
    const target = join(dir, `grok-${version}`);
    try {
      await installBrotliBinary({ source, target, sha256 });
      return { path: target, source: "npm", version };
    } catch (err) {
      if (err instanceof SeatError) throw err;
      lastError = err;
      tried.push(`npm cache ${target} (${(err as NodeJS.ErrnoException).code ?? "failed"})`);
    }
  }
  throw new SeatError(
    "GROK_NOT_FOUND",
    `${pkg}@${version} is installed but no cache dir was writable (${dirs.join(", ")}). Pass cacheDir or set XDG_CACHE_HOME.`,
    {
      context: { package: pkg, version, dirs },
      cause: lastError,
    },
  );
}

/** Resolves the grok binary: explicit option, then GROK_BIN, then `grok` on PATH, then the pinned npm package. */
export async function resolveGrokBinary(options: ResolveGrokBinaryOptions = {}): Promise<GrokBinary> {
  const env = options.env ?? process.env;
  const tried: string[] = [];
  if (options.explicitPath) {
    if (await isExecutableFile(options.explicitPath)) return { path: options.explicitPath, source: "option" };
    throw notExecutable(options.explicitPath, "grokCliBinaryPath", "option");
  }
  tried.push("grokCliBinaryPath (unset)");
  if (env.GROK_BIN) {
    if (await isExecutableFile(env.GROK_BIN)) return { path: env.GROK_BIN, source: "env" };
    throw notExecutable(env.GROK_BIN, "GROK_BIN", "env");
  }
  tried.push("GROK_BIN (unset)");
  // Empty PATH entries mean "current directory"; skip them so the cwd never supplies a binary.
  const dirs = (env.PATH ?? "").split(delimiter).filter((d) => d !== "");
  for (const dir of dirs) {
    const candidate = join(dir, "grok");
    if (await isExecutableFile(candidate)) return { path: candidate, source: "path" };
  }
  tried.push(`grok on PATH (${dirs.length} dirs)`);
  const pkg = options.npmPackage === undefined ? defaultGrokNpmPackage() : options.npmPackage;
  if (pkg !== null) {
    const found = await resolveFromNpm(pkg, env, options.cacheDir, tried);
    if (found) return found;
  } else {
    tried.push("npm package (disabled)");
  }
  throw new SeatError(
    "GROK_NOT_FOUND",
    `No grok binary found; tried ${tried.join(", ")}. Install the optional dependency @xai-official/grok-linux-x64@1.0.41 (npm ci), or set GROK_BIN to xAI's grok.`,
    { context: { tried } },
  );
}

/** Resolves grok like resolveGrokBinary but only from the pinned npm package, decompressing it on first use. */
export async function ensureGrokBinary(
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<GrokBinary> {
  const env = options.env ?? process.env;
  return resolveGrokBinary({ env: { HOME: env.HOME, XDG_CACHE_HOME: env.XDG_CACHE_HOME }, cacheDir: options.cacheDir });
}
