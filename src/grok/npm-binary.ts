/*
 * npm binary: turn the pinned `@xai-official/grok-<platform>` package's `bin/grok.br` into a verified executable.
 * Owns: the version → sha256 table, the brotli decompression into a cache dir, and the `<file>.sha256` marker.
 * Does not own: deciding whether to use npm at all (binary.ts) or the `@xai-official/grok` wrapper (never used).
 * Invariant: a cached binary is only ever published by an atomic rename after its sha256 matched the table,
 *   so concurrent processes never see a partial or unverified file.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress } from "node:zlib";
import { SeatError } from "../errors.js";

/** sha256 of the decompressed `bin/grok.br`, per platform package and version. */
export const PINNED_GROK_SHA256: Readonly<Record<string, Readonly<Record<string, string>>>> = Object.freeze({
  "@xai-official/grok-linux-x64": Object.freeze({
    "1.0.41": "9ce03ed23e16ea01072b4496263d6213a27899e1e3e107f008d36edf82e70407",
  }),
});

/** The grok version grok-seat is pinned to. */
export const PINNED_GROK_VERSION = "1.0.41";

interface Marker {
  schema: "grok-seat.binary-marker.v1";
  sha256: string;
  size: number;
  mtime_ms: number;
}

/** Options for installBrotliBinary: the `.br` source, the final path and the expected sha256 of the output. */
export interface InstallBrotliOptions {
  source: string;
  target: string;
  sha256: string;
}

/** What installBrotliBinary did: reused a marked file, re-verified an unmarked one, or decompressed afresh. */
export type InstallOutcome = "reused" | "verified" | "decompressed";

async function readMarker(target: string): Promise<Marker | undefined> {
  try {
    const m = JSON.parse(await readFile(`${target}.sha256`, "utf8")) as Marker;
    return m.schema === "grok-seat.binary-marker.v1" ? m : undefined;
  } catch {
    return undefined;
  }
}

async function writeMarker(target: string, sha256: string): Promise<void> {
  const st = await stat(target);
  const marker: Marker = { schema: "grok-seat.binary-marker.v1", sha256, size: st.size, mtime_ms: st.mtimeMs };
  const tmp = `${target}.sha256.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  await writeFile(tmp, `${JSON.stringify(marker)}\n`);
  await rename(tmp, `${target}.sha256`);
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), async (chunks: AsyncIterable<Buffer>) => {
    for await (const c of chunks) hash.update(c);
  });
  return hash.digest("hex");
}

/**
 * Decompresses `source` to `target` once (temp file, sha256 check, chmod 755, atomic rename) and records a marker;
 * later calls reuse the file when the marker's sha, size and mtime still match, without re-hashing it.
 * Safe to call from several processes at once. Throws GROK_CHECKSUM_MISMATCH when the output has the wrong hash.
 */
export async function installBrotliBinary(options: InstallBrotliOptions): Promise<InstallOutcome> {
  const { source, target, sha256 } = options;
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isFile()) {
    const marker = await readMarker(target);
    if (marker && marker.sha256 === sha256 && marker.size === existing.size && marker.mtime_ms === existing.mtimeMs)
      return "reused";
    // No (or stale) marker: hash once; a good file gets a marker, a bad one is replaced below.
    if ((await hashFile(target)) === sha256) {
      await chmod(target, 0o755);
      await writeMarker(target, sha256);
      return "verified";
    }
  }
  await mkdir(dirname(target), { recursive: true });
  const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
  const hash = createHash("sha256");
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(source), createBrotliDecompress(), tap, createWriteStream(tmp, { mode: 0o600 }));
    const actual = hash.digest("hex");
    if (actual !== sha256) {
      throw new SeatError(
        "GROK_CHECKSUM_MISMATCH",
        `Decompressing ${source} produced sha256 ${actual}, but ${sha256} is recorded for it. The package is corrupt or not the pinned build; reinstall it (npm ci) or set GROK_BIN to a trusted grok.`,
        { context: { source, target, expected: sha256, actual } },
      );
    }
    await chmod(tmp, 0o755);
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await writeMarker(target, sha256);
  return "decompressed";
}
