/*
 * Live rig: the real grok binary from npm, a scripted mock model on loopback and a throwaway GROK_HOME,
 * ready to hand to createSession. When the binary cannot be provisioned it returns the reason; tests hand that to
 * requirements.ts (`gotLive`), which fails in required mode and skips otherwise.
 */
import { ensureGrokBinary } from "../../src/grok/index.js";
import {
  startMockModel,
  createSandbox,
  type MockModelServer,
  type MockScript,
  type Sandbox,
} from "../../src/testing.js";

/** A running rig; close() stops the mock and removes the sandbox. */
export interface LiveRig {
  binary: string;
  mock: MockModelServer;
  sandbox: Sandbox;
  /** Options to spread into createSession. */
  sessionOptions: { cwd: string; grokCliBinaryPath: string; agentEnv: Record<string, string>; env: NodeJS.ProcessEnv };
  close(): Promise<void>;
}

let cachedBinary: Promise<string | Error> | undefined;

/** The real binary's path, or the reason it cannot be had here. */
export function liveBinary(): Promise<string | Error> {
  cachedBinary ??= ensureGrokBinary().then(
    (b) => b.path,
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  );
  return cachedBinary;
}

/** Starts a rig, or returns why the real grok is unavailable. */
export async function startLiveRig(script: MockScript = {}): Promise<LiveRig | string> {
  const binary = await liveBinary();
  if (binary instanceof Error) return `real grok unavailable: ${binary.message}`;
  const mock = await startMockModel({ script });
  const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl });
  // The parent env passed to createSession is reduced to PATH: nothing of the host leaks in, and the
  // sandbox's HOME/GROK_HOME come in through agentEnv.
  return {
    binary,
    mock,
    sandbox,
    sessionOptions: {
      cwd: sandbox.project,
      grokCliBinaryPath: binary,
      agentEnv: sandbox.env,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    },
    async close() {
      await mock.close();
      sandbox.cleanup();
    },
  };
}
