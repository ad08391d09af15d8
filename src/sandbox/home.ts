/*
 * Sandbox home: a throwaway HOME + GROK_HOME whose config points grok at a loopback mock model.
 * Owns: the temp directory tree, config.toml (auto-update and telemetry off, BYOK mock model), the env.
 * Does not own: the mock server (mock-model/) or spawning grok (grok/).
 * Invariant: never reads or writes the real ~/.grok; everything lives under one temp root removed by cleanup().
 * Spec: shared reference grok-wire.md §2.
 */
import { mkdtempSync, mkdirSync, writeFileSync, realpathSync } from "node:fs";
import { removePrivateDir } from "../internal/private-dir.js";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Options for createSandbox. */
export interface SandboxOptions {
  /** Mock base URL ending in /v1. */
  modelBaseUrl: string;
  /** ACP model id (the `[model.<id>]` key). */
  modelId?: string;
  /** Model name sent on the wire. */
  wireModel?: string;
  /** Prefix of the temp directory name. */
  prefix?: string;
}

/** A hermetic home for one grok run. */
export interface Sandbox {
  readonly root: string;
  readonly home: string;
  readonly grokHome: string;
  /** A working directory for sessions (an empty project). */
  readonly project: string;
  /** Environment for grok: HOME, GROK_HOME, PATH, auto-update and telemetry off. */
  readonly env: Record<string, string>;
  cleanup(): void;
}

/**
 * The config.toml text for a BYOK mock model with updates, telemetry and remote fetches off. Published on
 * `grok-seat/testing` so a user can build a persistent offline home: write it to `<home>/.grok/config.toml`
 * with the mock on a fixed port (examples/persistent-sandbox.ts). `modelId` must be a bare TOML key.
 */
export function sandboxConfigToml(modelBaseUrl: string, modelId = "mock", wireModel = "mock-model"): string {
  return [
    "[cli]",
    "auto_update = false",
    "[features]",
    "telemetry = false",
    "remote_fetch = false",
    "[models]",
    `default = ${JSON.stringify(modelId)}`,
    `[model.${modelId}]`,
    `model = ${JSON.stringify(wireModel)}`,
    `base_url = ${JSON.stringify(modelBaseUrl)}`,
    'name = "Mock Model"',
    'api_key = "mock-key"',
    "context_window = 128000",
    "",
  ].join("\n");
}

/** Creates the sandbox tree and its config; call cleanup() when done. */
export function createSandbox(options: SandboxOptions): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), options.prefix ?? "grok-seat-")));
  const home = join(root, "home");
  const grokHome = join(home, ".grok");
  const project = join(root, "project");
  for (const dir of [home, grokHome, project]) mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(grokHome, "config.toml"),
    sandboxConfigToml(options.modelBaseUrl, options.modelId, options.wireModel),
  );
  const env: Record<string, string> = {
    HOME: home,
    GROK_HOME: grokHome,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    GROK_DISABLE_AUTOUPDATER: "1",
    GROK_TELEMETRY_ENABLED: "0",
    LANG: "C.UTF-8",
  };
  let cleaned = false;
  return {
    root,
    home,
    grokHome,
    project,
    env,
    cleanup() {
      if (cleaned) return;
      cleaned = true;
      // Processes that just exited may still be flushing into GROK_HOME; retry a little before giving up.
      removePrivateDir(root, { retries: 10 });
    },
  };
}
