/*
 * Controller launch: start a visible seat's detached per-seat controller on a written config and relay the
 *   outcome of its hire (or restore) — the one way `seat hire` and `seat restore` start a seat.
 * Owns: the spawn (detached, its log in the seat dir, fd 3 for the one outcome line) and reading that line.
 * Does not own: the config (the verbs write it) or the hire itself (seat/controller.ts in the child).
 * Invariant: secret values reach the controller only in `env`, never in its argv or config file.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { join } from "node:path";
import { builtFile } from "../internal/package-files.js";

const CONTROLLER_MAIN = builtFile("src", "seat", "controller-main.js");

/** Starts the controller on `configPath` and resolves its first line: `{type: "hired", …}` or `{type: "refused", error}`. */
export async function launchController(
  dir: string,
  configPath: string,
  env: Record<string, string>,
): Promise<Record<string, unknown>> {
  const logFd = openSync(join(dir, "controller.log"), "a", 0o600);
  const child = spawn(process.execPath, [CONTROLLER_MAIN, configPath], {
    detached: true,
    stdio: ["ignore", logFd, logFd, "pipe"],
    env,
  });
  closeSync(logFd);
  const outcome = await new Promise<Record<string, unknown>>((resolveOutcome) => {
    let text = "";
    const pipe = child.stdio[3] as NodeJS.ReadableStream;
    pipe.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    pipe.on("end", () => {
      try {
        resolveOutcome(
          JSON.parse(text.split("\n")[0] || "null") ?? {
            type: "refused",
            error: { code: "INTERNAL", message: "the controller reported nothing" },
          },
        );
      } catch {
        resolveOutcome({
          type: "refused",
          error: { code: "INTERNAL", message: `the controller reported ${JSON.stringify(text.slice(0, 200))}` },
        });
      }
    });
    pipe.on("error", () => {});
  });
  (child.stdio[3] as NodeJS.ReadableStream & { destroy(): void }).destroy();
  child.unref();
  return outcome;
}
