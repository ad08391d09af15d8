/*
 * Fake agent launcher: an executable wrapper so createSession can spawn test/fakes/fake-grok.js exactly as it
 * spawns grok (same argv, same env allow-list), with a scenario chosen through agentEnv.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Path of the compiled fake agent script. */
export const FAKE_GROK_JS = fileURLToPath(new URL("../fakes/fake-grok.js", import.meta.url));

/** A temp dir holding an executable `grok` that runs the fake; remove() deletes it. */
export function fakeGrokBinary(): { path: string; dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "fake-grok-bin-"));
  const path = join(dir, "grok");
  writeFileSync(path, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`);
  chmodSync(path, 0o755);
  return { path, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
