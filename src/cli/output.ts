/*
 * CLI output: the only place that maps error codes to exit codes and renders events as text or NDJSON.
 * Owns: exit-code table, `--json` line format, human rendering (colour only on a TTY, NO_COLOR honoured).
 * Does not own: what the commands do.
 * Invariant: with --json, stdout carries exactly one JSON object per line, each with a `type` field;
 *   every JSON line passes through redact(), and — once main.ts has called redactWrites() — every byte any verb
 *   writes to stdout or stderr passes through redactText() too, so no known secret value is ever printed, whatever
 *   helper wrote it. The one deliberate exception is writeUnmasked() (the board's own token link for its owner).
 */
import { isSeatError, messageOf, type ErrorCode } from "../errors.js";
import { createStreamMasker, redact, redactText } from "../internal/redact.js";
import type { SeatEvent } from "../acp/index.js";
import { isStdoutClosed } from "./pipes.js";

/** Stable exit codes of the `seat` CLI (documented in the README). */
export const EXIT = {
  ok: 0,
  turnFailed: 1,
  usage: 2,
  grokUnavailable: 3,
  notAuthenticated: 4,
  policyInvalid: 5,
  seatRefused: 6,
  muxUnavailable: 7,
  sessionBusy: 75,
  jobUncertain: 76,
  budgetExceeded: 77,
  timeout: 124,
  interrupted: 130,
  /** The reader of stdout went away (`seat … | head -1`): 128 + SIGPIPE, as a shell reports `yes | head -1`. */
  brokenPipe: 141,
} as const;

/** The exit code for an error code. */
export function exitCodeFor(code: ErrorCode | undefined): number {
  switch (code) {
    case undefined:
      return EXIT.turnFailed;
    case "CLI_USAGE":
    case "CLI_CONFIG_INVALID":
    case "SESSION_NAME_INVALID":
    case "AGENT_NOT_FOUND":
    case "SEAT_BRIEF_INVALID":
    case "FLEET_REDIS_URL_INVALID":
    case "FLEET_REDIS_TLS_FILE_UNREADABLE":
    case "FLEET_REDIS_TLS_CONFIG_INVALID":
    case "FLEET_SENTINEL_MASTER_UNKNOWN":
    case "FLEET_JOB_INVALID":
    case "FLEET_TOOLS_INVALID":
    case "AGENT_MODEL_UNSUPPORTED":
    case "WORKTREE_NOT_A_REPO":
    case "WORKTREE_NAME_INVALID":
    case "WORKTREE_BASE_INVALID":
    case "WORKTREE_MERGE_TARGET_INVALID":
    case "MODEL_UNKNOWN":
    case "BOARD_UNSAFE_ADDRESS":
    case "APPROVAL_ANSWER_INVALID":
    case "NOTIFY_CONFIG_INVALID":
    case "NOTIFY_TARGET_UNKNOWN":
    // Library codes for bad input the CLI passed along: a usage error at the command line.
    case "AGENT_COMMAND_INVALID":
    case "SEAT_ID_INVALID":
    case "SEAT_USER_HOME_INVALID":
    case "SEAT_CONTROL_REQUEST_INVALID":
    case "USAGE_DATE_INVALID":
    case "FLEET_BUDGET_INVALID":
    case "FLEET_KEY_INVALID":
    case "BOARD_TOKEN_INVALID":
    case "MCP_OPTIONS_INVALID":
      return EXIT.usage;
    case "FLEET_JOB_UNCERTAIN":
    case "FLEET_REPLICATION_UNCONFIRMED":
      return EXIT.jobUncertain;
    case "BUDGET_EXCEEDED":
      return EXIT.budgetExceeded;
    case "BUDGET_UNMETERED":
    case "PRICES_INVALID":
    case "SESSION_BUDGET_INVALID":
      return EXIT.usage;
    case "GROK_NOT_FOUND":
    case "GROK_CHECKSUM_MISMATCH":
    case "GROK_PROBE_FAILED":
    case "GROK_SPAWN_FAILED":
    case "GROK_REAPER_FAILED":
    case "AGENT_NOT_INSTALLED":
      return EXIT.grokUnavailable;
    case "ACP_NOT_AUTHENTICATED":
      return EXIT.notAuthenticated;
    case "PERMISSION_POLICY_INVALID":
      return EXIT.policyInvalid;
    case "ACP_TURN_TIMEOUT":
    case "ACP_IDLE_TIMEOUT":
    // --fail-fast is the idle timeout's early form: the same stuck turn, ended sooner with grok's reason.
    case "MODEL_UNREACHABLE":
    case "APPROVAL_TIMEOUT":
    case "SEAT_CONTROLLER_TIMEOUT":
    case "SESSION_CANCEL_TIMEOUT":
      return EXIT.timeout;
    case "MUX_UNAVAILABLE":
      return EXIT.muxUnavailable;
    case "SESSION_BUSY":
    case "WORKTREE_BUSY":
    // Busy, not broken: the same "try again shortly" status as a busy session (nothing was done).
    case "JOURNAL_BUSY":
      return EXIT.sessionBusy;
    case "IDENTITY_MISMATCH":
    case "IDENTITY_UNKNOWN":
    case "LEADER_VERSION_REFUSED":
    case "LEADER_PROTOCOL_ERROR":
    case "SEAT_REFUSED":
    case "SEAT_SOCKET_UNUSABLE":
    case "SEAT_CONTROLLER_FAILED":
    case "SEAT_HIRE_FAILED":
    case "PRIVATE_DIR_REFUSED":
    case "CONTROL_SOCKET_UNTRUSTED":
    case "SEAT_NOT_ADMITTED":
    case "SEAT_RELEASE_REFUSED":
    case "HERDR_AGENT_REFUSED":
    case "LEADER_SOCKET_GONE":
      return EXIT.seatRefused;
    default:
      return EXIT.turnFailed;
  }
}

type WriteFn = NodeJS.WriteStream["write"];
const rawWrites = new WeakMap<NodeJS.WriteStream, WriteFn>();

/**
 * Makes every later write to `stream` pass through the one redaction (internal/redact.ts): a string as it is, a
 * buffer as the UTF-8 text it holds (passed on untouched when it holds no secret). main.ts installs it on
 * stdout and stderr before any verb runs, so no verb, helper or library line can print around it. Installing
 * twice changes nothing. A secret split across two writes is not joined here (the answer printer joins its chunks).
 */
export function redactWrites(stream: NodeJS.WriteStream): void {
  if (rawWrites.has(stream)) return;
  const raw = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  rawWrites.set(stream, raw as WriteFn);
  stream.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (typeof chunk === "string") return raw(redactText(chunk), ...rest);
    if (chunk instanceof Uint8Array) {
      const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("utf8");
      const masked = redactText(text);
      return raw(masked === text ? chunk : Buffer.from(masked, "utf8"), ...rest);
    }
    return raw(chunk, ...rest);
  }) as WriteFn;
}

/**
 * Writes `text` to `stream` past redactWrites: only for a secret shown on purpose to the person it belongs to
 * (`seat board` printing the link with the token it just made). Nothing else calls it.
 */
export function writeUnmasked(stream: NodeJS.WriteStream, text: string): void {
  const raw = rawWrites.get(stream);
  if (raw) raw.call(stream, text);
  else stream.write(text);
}

/** Writes one NDJSON line to stdout. */
export function writeJson(value: { type: string } & Record<string, unknown>): void {
  if (isStdoutClosed()) return;
  process.stdout.write(`${JSON.stringify(redact(value))}\n`);
}

/** The `--json` object for any thrown value. */
export function errorJson(error: unknown): { type: "error"; code: string; message: string; context?: unknown } {
  if (isSeatError(error)) return { type: "error", code: error.code, message: error.message, context: error.context };
  return { type: "error", code: "INTERNAL", message: messageOf(error) };
}

/** Colours for human output; all identity functions when colour is off. */
export interface Palette {
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

/** A palette honouring NO_COLOR and TTY-ness of the stream. */
export function paletteFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): Palette {
  const on = stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== "dumb";
  const wrap = (open: number, close: number) => (text: string) =>
    on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return { dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39) };
}

/** A one-line snippet of a tool's output (MCP `OkayOutput`, or a plain string), when there is one. */
export function toolOutputSnippet(rawOutput: unknown, maxChars = 80): string | undefined {
  let text: unknown = rawOutput;
  if (rawOutput && typeof rawOutput === "object") {
    const output = (rawOutput as { output?: unknown }).output;
    text = output && typeof output === "object" ? (output as { OkayOutput?: unknown }).OkayOutput : output;
  }
  if (typeof text !== "string" || text.trim() === "") return undefined;
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

/** One human line for a tool/permission/diagnostic event, or undefined for events shown otherwise. */
export function humanLine(event: SeatEvent, palette: Palette): string | undefined {
  switch (event.type) {
    case "tool_start":
      return palette.dim(
        `▸ tool ${event.toolName && event.toolName !== event.title ? `${event.toolName}: ` : ""}${event.title}`,
      );
    case "tool_end": {
      const name = event.title ?? event.toolCallId;
      if (event.status !== "completed") return palette.red(`  ✗ ${name} failed`);
      const output = toolOutputSnippet(event.rawOutput);
      return palette.dim(`  ✓ ${name}${output ? ` → ${output}` : ""}`);
    }
    case "permission":
      return palette.yellow(
        `▸ permission ${event.category}: ${event.decision}${event.optionId ? ` (${event.optionId})` : ""}`,
      );
    case "approval_asked": {
      const a = event.approval;
      const what = a.target.command ?? a.target.paths?.join(", ") ?? a.target.toolName ?? a.title;
      return palette.yellow(
        `▸ approval needed (${a.category}): ${what} — seat approve ${a.id} | seat deny ${a.id} (until ${a.deadline})`,
      );
    }
    case "approval_answered":
      return palette.yellow(
        `▸ approval ${event.id}: ${event.decision} (${event.via}${event.by ? ` by ${event.by}` : ""})`,
      );
    case "diagnostic": {
      // A message made from a SeatError already carries its code; it is not repeated.
      const { code, message } = event.diagnostic;
      return palette.red(`! ${message}${message.includes(`[${code}]`) ? "" : ` [${code}]`}`);
    }
    case "retry":
      return palette.yellow(
        `grok is retrying the model request: ${event.reason} (attempt ${event.attempt}/${event.max})`,
      );
    case "model_catalog":
      return palette.yellow(
        event.status === "failed"
          ? `grok gave up refreshing its model catalogue: ${event.reason ?? "unknown error"}`
          : `grok could not refresh its model catalogue (attempt ${event.attempt ?? "?"}/${event.max ?? "?"})`,
      );
    case "rate_limited":
      return palette.yellow(
        `the model answered HTTP ${event.statusCode} (a limit): ${event.final ? "grok gave up on the request" : `grok retries (attempt ${event.attempt ?? "?"}/${event.max ?? "?"})`}`,
      );
    case "plan":
      return palette.dim(
        `▸ plan: ${event.entries.map((e) => `${e.status === "completed" ? "✓" : "·"} ${e.content}`).join("; ")}`,
      );
    default:
      return undefined;
  }
}

/** A stderr spinner that only runs on a TTY; stop() clears it. */
export function startSpinner(stream: NodeJS.WriteStream, label: string): { stop(): void } {
  if (!stream.isTTY) return { stop() {} };
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  let i = 0;
  const timer = setInterval(() => {
    stream.write(`\r${frames[i++ % frames.length]} ${label}`);
  }, 100);
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write("\r\u001b[2K");
    },
  };
}

/** Streams a turn for a person: answer text to stdout, one line per tool/permission/diagnostic to stderr. */
export interface HumanPrinter {
  onEvent(event: SeatEvent): void;
  /** Ends the answer with a newline if it did not end with one. */
  finish(): void;
}

/** A HumanPrinter; `beforeOutput` runs before anything is printed (e.g. to stop a spinner). */
export function createHumanPrinter(palette: Palette, beforeOutput: () => void = () => {}): HumanPrinter {
  let endedWithNewline = true;
  // The answer arrives in chunks: a secret split across two of them is joined before it is masked.
  let answer = createStreamMasker();
  return {
    onEvent(event) {
      if (event.type === "text") {
        beforeOutput();
        if (isStdoutClosed()) return;
        process.stdout.write(answer.push(event.text));
        endedWithNewline = event.text.endsWith("\n");
        return;
      }
      const line = humanLine(event, palette);
      if (!line) return;
      beforeOutput();
      this.finish();
      process.stderr.write(`${redactText(line)}\n`);
    },
    finish() {
      const rest = answer.end();
      answer = createStreamMasker();
      if (isStdoutClosed()) return;
      if (rest !== "") process.stdout.write(rest);
      if (!endedWithNewline) process.stdout.write("\n");
      endedWithNewline = true;
    },
  };
}
