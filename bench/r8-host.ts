/*
 * R8 host: a minimal MCP host as its own process — the official MCP Client over stdio starts `seat mcp`, calls
 *   `run` once with a progress token, and then leaves the way its parent tells it to. R8 (bench/r8-disconnects.ts)
 *   starts one per disconnect.
 * Owns: the host side of one disconnect: `close` (the SDK's own client.close(): stdin ended, then SIGTERM and
 *   SIGKILL after 2 s each — what an SDK host does on quit) and `eof` (only the server's stdin closed); the third
 *   way, the host killed (SIGKILL), is done to this process from outside.
 * Does not own: judging the outcome (r8-disconnects.ts).
 * Protocol: argv[2] is JSON {command, args, env, cwd, prompt}. Lines out (JSON): {server: pid} once the client is
 *   connected, {called: true} when tools/call was sent, {progress: n}, {result: {...}} or {error: message}, and
 *   {serverExit: {code, signal}}. Lines in: `close` or `eof`.
 */
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface HostArgs {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  prompt: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const say = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

async function main(): Promise<void> {
  const spec = JSON.parse(process.argv[2] ?? "{}") as HostArgs;
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: spec.env,
    cwd: spec.cwd,
    stderr: "ignore",
  });
  const client = new Client({ name: "grok-seat-r8-host", version: "0.1.0" });
  await client.connect(transport);
  const pid = transport.pid;
  say({ server: pid });
  // The server's exit, seen from /proc (the transport drops its process handle once closed).
  const watchExit = async () => {
    while (pid !== null && alive(pid)) await new Promise((r) => setTimeout(r, 20));
    say({ serverExit: true });
  };
  let progress = 0;
  const call = client.callTool({ name: "run", arguments: { prompt: spec.prompt } }, undefined, {
    onprogress: () => say({ progress: ++progress }),
    timeout: 600_000,
  });
  say({ called: true });
  call.then(
    (result) => say({ result }),
    (error: unknown) => say({ error: error instanceof Error ? error.message : String(error) }),
  );
  for await (const line of createInterface({ input: process.stdin })) {
    if (line === "close") {
      await client.close();
      await watchExit();
      process.exit(0);
    }
    if (line === "eof") {
      // Only the server's stdin: the SDK keeps the child private, so reach it the one way there is.
      (transport as unknown as { _process?: { stdin?: { end(): void } } })._process?.stdin?.end();
      await watchExit();
      process.exit(0);
    }
  }
}

main().catch((error: unknown) => {
  say({ error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
