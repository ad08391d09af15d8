/*
 * MCP relay: a stdio pass-through between an MCP host and `seat mcp` that notes the method of every JSON-RPC
 *   message each way, so a test can see what the host asked for (progress tokens, notifications/cancelled) and
 *   what the server sent back (notifications/progress) — the host's own logs are not ours to read.
 * Usage: node mcp-relay.js LOGFILE COMMAND ARGS… — bytes are passed through unchanged; each complete line is noted
 *   in LOGFILE as `in <method>` (host → server) or `out <method>` (server → host); `id`-only answers as `out result`.
 */
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const [log, command, ...args] = process.argv.slice(2);
if (!log || !command) {
  process.stderr.write("usage: mcp-relay LOGFILE COMMAND [ARGS...]\n");
  process.exit(2);
}
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });

/** Notes the method of each complete line of `direction`'s stream. */
function noter(direction: "in" | "out"): (chunk: Buffer) => void {
  let buffer = "";
  return (chunk) => {
    buffer += chunk.toString("utf8");
    let at: number;
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      try {
        const msg = JSON.parse(line) as { method?: string; params?: { _meta?: { progressToken?: unknown } } };
        const token = msg.params?._meta?.progressToken !== undefined ? " progressToken" : "";
        appendFileSync(log, `${direction} ${msg.method ?? "result"}${token}\n`);
      } catch {
        appendFileSync(log, `${direction} (not JSON)\n`);
      }
    }
  };
}

const noteIn = noter("in");
const noteOut = noter("out");
process.stdin.on("data", (chunk: Buffer) => {
  noteIn(chunk);
  child.stdin!.write(chunk);
});
process.stdin.on("end", () => child.stdin!.end());
child.stdin!.on("error", () => undefined);
child.stdout!.on("data", (chunk: Buffer) => {
  noteOut(chunk);
  process.stdout.write(chunk);
});
for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
