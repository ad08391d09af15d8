/*
 * Controller entry point: `node controller-main.js <hire.json>`, started detached by `seat hire`.
 * Owns: reading the config, reporting the hire outcome as one JSON line on fd 3 (then closing it),
 *   and logging to stderr (the seat's controller.log); everything written is redacted.
 * Does not own: anything the controller does (controller.ts).
 */
import { createWriteStream, readFileSync } from "node:fs";
import { redact, redactText } from "../internal/redact.js";
import { runController, tuiEnvOf, type ControllerConfig } from "./controller.js";

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write("usage: controller-main <hire.json>\n");
  process.exit(2);
}
const config = JSON.parse(readFileSync(configPath, "utf8")) as ControllerConfig;
tuiEnvOf(config); // registers this process's secret values before anything can be reported
let reportStream: NodeJS.WritableStream | null = null;
try {
  reportStream = createWriteStream("", { fd: 3 });
  reportStream.on("error", () => {});
} catch {
  reportStream = null;
}
const report = (line: Record<string, unknown>): void => {
  const text = `${JSON.stringify(redact(line))}\n`;
  process.stderr.write(text);
  if (reportStream) {
    reportStream.end(text);
    reportStream = null;
  }
};
const log = (line: string): void => void process.stderr.write(`${redactText(line)}\n`);
process.on("SIGHUP", () => {}); // survive the terminal that ran `seat hire`
runController(config, report, log).then(
  (code) => process.exit(code),
  (error: unknown) => {
    report({ type: "refused", seatId: config.seatId, error: { code: "INTERNAL", message: String(error) } });
    process.exit(1);
  },
);
