import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { brotliCompressSync } from "node:zlib";
import { createHash } from "node:crypto";
import { isSeatError } from "../errors.js";
import { resolveGrokBinary } from "./binary.js";
import { listGrokModels } from "./models.js";
import { installBrotliBinary } from "./npm-binary.js";
import { probeGrok } from "./version.js";
import { needGrok } from "../../test/support/requirements.js";

const root = mkdtempSync(join(tmpdir(), "gs-grok-binary-"));
after(() => rmSync(root, { recursive: true, force: true }));

function fakeGrok(dir: string, stdout: string, mode = 0o755): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "grok");
  writeFileSync(path, `#!/bin/sh\nprintf '%s' '${stdout.replace(/'/g, "'\\''")}'\n`);
  chmodSync(path, mode);
  return path;
}

const optionBin = fakeGrok(join(root, "opt"), "grok 9.0.0 (aaaaaaa)\n");
const envBin = fakeGrok(join(root, "env"), "grok 8.0.0 (bbbbbbb)\n");
const pathBin = fakeGrok(join(root, "path"), "grok 7.0.0 (ccccccc)\n");
const noExecDir = join(root, "noexec");
fakeGrok(noExecDir, "grok 6.0.0 (ddddddd)\n", 0o644);

test("resolution order is option, then GROK_BIN, then PATH", async () => {
  const env = { GROK_BIN: envBin, PATH: join(root, "path") };
  assert.deepEqual(await resolveGrokBinary({ explicitPath: optionBin, env, npmPackage: null }), {
    path: optionBin,
    source: "option",
  });
  assert.deepEqual(await resolveGrokBinary({ env, npmPackage: null }), { path: envBin, source: "env" });
  assert.deepEqual(await resolveGrokBinary({ env: { PATH: join(root, "path") }, npmPackage: null }), {
    path: pathBin,
    source: "path",
  });
});

test("PATH lookup skips non-executable files and directories named grok", async () => {
  mkdirSync(join(root, "dirgrok", "grok"), { recursive: true });
  const PATH = [noExecDir, join(root, "dirgrok"), "", join(root, "path")].join(":");
  assert.deepEqual(await resolveGrokBinary({ env: { PATH }, npmPackage: null }), { path: pathBin, source: "path" });
});

test("an explicit path or GROK_BIN that is not executable fails instead of falling through", async () => {
  await assert.rejects(
    resolveGrokBinary({ explicitPath: join(noExecDir, "grok"), env: { PATH: join(root, "path") } }),
    (e) => isSeatError(e, "GROK_NOT_FOUND") && /grokCliBinaryPath/.test(e.message),
  );
  await assert.rejects(
    resolveGrokBinary({ env: { GROK_BIN: join(root, "missing"), PATH: join(root, "path") } }),
    (e) => isSeatError(e, "GROK_NOT_FOUND") && /GROK_BIN/.test(e.message),
  );
});

test("nothing found lists every place tried and the next step", async () => {
  await assert.rejects(
    resolveGrokBinary({ env: { PATH: noExecDir }, npmPackage: "@xai-official/grok-not-a-platform" }),
    (e) => {
      assert.ok(isSeatError(e, "GROK_NOT_FOUND"));
      assert.match(e.message, /GROK_BIN \(unset\)/);
      assert.match(e.message, /grok on PATH/);
      assert.match(e.message, /@xai-official\/grok-not-a-platform \(not installed\)/);
      assert.match(e.message, /set GROK_BIN/);
      return true;
    },
  );
});

test("probeGrok reports a parsable version as binary-ready, and garbage or a missing file as not ready", async () => {
  assert.deepEqual(await probeGrok({ binary: optionBin, env: {} }), {
    binaryReady: true,
    path: optionBin,
    version: "9.0.0",
    sha: "aaaaaaa",
  });
  const garbage = fakeGrok(join(root, "garbage"), "Usage: grok-cli --prompt\n");
  const bad = await probeGrok({ binary: garbage, env: {} });
  assert.equal(bad.binaryReady, false);
  assert.ok(isSeatError(bad.error, "GROK_PROBE_FAILED"));
  const missing = await probeGrok({ binary: join(root, "nope", "grok"), env: {} });
  assert.equal(missing.binaryReady, false);
  assert.ok(isSeatError(missing.error, "GROK_PROBE_FAILED"));
  assert.deepEqual(missing.error.context.command, [join(root, "nope", "grok"), "--version"]);
});

test("listGrokModels runs the binary and exposes grok-cli ids", async () => {
  const bin = fakeGrok(
    join(root, "models"),
    "You are using XAI_API_KEY.\n\nDefault model: grok-4.5\n\nAvailable models:\n  * grok-4.5 (default)\n  - grok-composer-2.5-fast\n",
  );
  const r = await listGrokModels({ binary: bin, env: {} });
  assert.equal(r.auth, "api-key");
  assert.deepEqual(r.providerModelIds, ["grok-cli/grok-4.5", "grok-cli/grok-composer-2.5-fast"]);
});

const payload = Buffer.from("#!/bin/sh\necho 'grok 0.0.1 (0123456)'\n");
const payloadSha = createHash("sha256").update(payload).digest("hex");
const brFile = join(root, "small.br");
writeFileSync(brFile, brotliCompressSync(payload));

test("installBrotliBinary decompresses once, then reuses the marked file", async () => {
  const target = join(root, "cache1", "grok-0.0.1");
  assert.equal(await installBrotliBinary({ source: brFile, target, sha256: payloadSha }), "decompressed");
  assert.deepEqual(readFileSync(target), payload);
  assert.equal(statSync(target).mode & 0o777, 0o755);
  const mtime = statSync(target).mtimeMs;
  assert.equal(await installBrotliBinary({ source: brFile, target, sha256: payloadSha }), "reused");
  assert.equal(statSync(target).mtimeMs, mtime);
  assert.deepEqual(readdirSync(join(root, "cache1")).sort(), ["grok-0.0.1", "grok-0.0.1.sha256"]);
});

test("a tampered cached binary is detected and replaced", async () => {
  const target = join(root, "cache2", "grok-0.0.1");
  await installBrotliBinary({ source: brFile, target, sha256: payloadSha });
  writeFileSync(target, "#!/bin/sh\necho evil\n");
  assert.equal(await installBrotliBinary({ source: brFile, target, sha256: payloadSha }), "decompressed");
  assert.deepEqual(readFileSync(target), payload);
});

test("a checksum mismatch fails with GROK_CHECKSUM_MISMATCH and leaves nothing behind", async () => {
  const dir = join(root, "cache3");
  await assert.rejects(
    installBrotliBinary({ source: brFile, target: join(dir, "grok-0.0.1"), sha256: "0".repeat(64) }),
    (e) => isSeatError(e, "GROK_CHECKSUM_MISMATCH") && e.context.actual === payloadSha,
  );
  assert.deepEqual(readdirSync(dir), []);
});

test("two processes installing at once both succeed with an intact file", async () => {
  const target = join(root, "cache4", "grok-0.0.1");
  const moduleUrl = new URL("./npm-binary.js", import.meta.url).href;
  const script = `const m = await import(${JSON.stringify(moduleUrl)}); console.log(await m.installBrotliBinary(${JSON.stringify({ source: brFile, target, sha256: payloadSha })}));`;
  const run = () => promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  const results = await Promise.all([run(), run(), run()]);
  for (const r of results) assert.match(r.stdout, /decompressed|verified|reused/);
  assert.deepEqual(readFileSync(target), payload);
  assert.deepEqual(readdirSync(join(root, "cache4")).sort(), ["grok-0.0.1", "grok-0.0.1.sha256"]);
});

const npmPkgInstalled = existsSync(
  fileURLToPath(new URL("../../../node_modules/@xai-official/grok-linux-x64/bin/grok.br", import.meta.url)),
);
test("the pinned npm package is decompressed, verified and runs as grok 1.0.41", async (t) => {
  if (
    !needGrok(
      t,
      npmPkgInstalled
        ? false
        : "the pinned grok package @xai-official/grok-linux-x64 (optional dependency, not installed)",
    )
  )
    return;
  const cacheDir = join(root, "npm-cache");
  const bin = await resolveGrokBinary({ env: { PATH: noExecDir }, cacheDir });
  assert.deepEqual(bin, { path: join(cacheDir, "grok-1.0.41"), source: "npm", version: "1.0.41" });
  const home = mkdtempSync(join(root, "home-"));
  const probe = await probeGrok({
    binary: bin.path,
    env: { HOME: home, GROK_HOME: join(home, ".grok"), GROK_DISABLE_AUTOUPDATER: "1" },
  });
  assert.equal(probe.binaryReady, true);
  assert.equal(probe.version, "1.0.41");
  assert.equal(probe.sha, "4220f3b224a6");
  const again = await resolveGrokBinary({ env: { PATH: noExecDir }, cacheDir });
  assert.equal(again.path, bin.path);
});
