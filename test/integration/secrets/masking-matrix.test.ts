/*
 * The masking matrix: every secret source the seat knows × every output path it writes, with canary values.
 * A source is registered through the very call that reads or makes it in the product (createSession's env for each
 * agent profile's key variables and for a name an embedder marks secret, parseRedisUrl for the Redis password in a
 * URL or its environment variable, startBoard for the board token). A path is fed text holding the canary and must
 * write it masked: no canary, and `[redacted]` where it was (the positive control that the text did get through).
 * Each cell fails if that path bypasses redaction. Paths that need a server of their own are covered elsewhere:
 * fleet records and streams (test/integration/fleet/fleet.test.ts), a whole CLI run (masking-cli.test.ts).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { after, test } from "node:test";
import { agentProfile, AGENT_NAMES } from "../../../src/agents/index.js";
import { startBoard } from "../../../src/board/server.js";
import { renderBoard, renderError } from "../../../src/board/page.js";
import { createHumanPrinter, errorJson, paletteFor, redactWrites, writeJson } from "../../../src/cli/output.js";
import { SeatError } from "../../../src/errors.js";
import { parseRedisUrl } from "../../../src/fleet/index.js";
import { openJournal } from "../../../src/journal/index.js";
import { progressSender, toolError, toolResult, type ToolExtra } from "../../../src/mcp/results.js";
import { createSession } from "../../../src/runtime/index.js";
import { waitingEnv } from "../../../src/listing/watch.js";
import { SessionStore } from "../../../src/session-store/store.js";
import { writeSeatFile } from "../../../src/home/seat-home.js";
import { ledgerEntriesOf, recordUsage } from "../../../src/usage/index.js";

const REDACTED = "[redacted]";
const root = mkdtempSync(join(tmpdir(), "gs-masking-matrix-"));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = (): string => {
  const dir = join(root, `d${(dirs += 1)}`);
  mkdirSync(dir, { mode: 0o700 });
  return dir;
};
const canaryFor = (label: string): string =>
  `canary-${label.replace(/\W+/g, "-").toLowerCase()}-${randomBytes(6).toString("hex")}`;

/** A session whose start fails right after it read its environment (no agent is installed in an empty root). */
async function sessionReading(
  env: Record<string, string>,
  options: { agent?: string; secretEnvNames?: string[] } = {},
): Promise<void> {
  const session = await createSession({
    env: { PATH: process.env.PATH ?? "", HOME: freshDir(), ...env },
    agentsDir: freshDir(),
    grokCliBinaryPath: join(root, "no-such-grok"),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.secretEnvNames ? { secretEnvNames: options.secretEnvNames } : {}),
  });
  assert.equal(session.state, "dead", "the session was expected to stop before any agent ran");
  await session.dispose();
}

/** One secret source: what it is, and how the product comes to know its value (returns the value). */
interface Source {
  label: string;
  register(): Promise<string>;
}

const SOURCES: Source[] = [
  // Each agent profile's key variables, as createSession reads them from its environment.
  ...AGENT_NAMES.flatMap((agent) =>
    (agent === "grok" ? ["XAI_API_KEY"] : (agentProfile(agent).keyVars ?? [])).map((name) => ({
      label: `${agent} ${name}`,
      async register() {
        const canary = canaryFor(`${agent} ${name}`);
        await sessionReading({ [name]: canary }, { agent });
        return canary;
      },
    })),
  ),
  {
    label: "Redis password in a redis:// URL",
    async register() {
      const canary = canaryFor("redis url");
      parseRedisUrl(`redis://:${canary}@127.0.0.1:1/0`, {});
      return canary;
    },
  },
  {
    label: "Redis password in GROK_SEAT_REDIS_PASSWORD",
    async register() {
      const canary = canaryFor("redis env");
      parseRedisUrl("redis://127.0.0.1:1/0", { GROK_SEAT_REDIS_PASSWORD: canary });
      return canary;
    },
  },
  {
    label: "board token (made fresh)",
    async register() {
      const board = await startBoard({ port: 0 });
      await board.close();
      return board.token;
    },
  },
  {
    label: "a name an embedder marks secret (secretEnvNames)",
    async register() {
      const canary = canaryFor("embedder");
      await sessionReading({ ACME_DEPLOY_TOKEN: canary }, { secretEnvNames: ["ACME_DEPLOY_TOKEN"] });
      return canary;
    },
  },
];

/** Everything written to process.stdout and process.stderr while `body` runs. */
function capturingStdio(body: () => void): string {
  const written: string[] = [];
  const out = process.stdout.write;
  const err = process.stderr.write;
  const capture = ((chunk: string | Uint8Array) => (
    written.push(Buffer.from(chunk).toString("utf8")), true
  )) as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  try {
    body();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return written.join("");
}

/** All bytes of every file in `dir` (a SQLite database and its WAL), as latin1 text. */
function filesOf(dir: string): string {
  return readdirSync(dir)
    .map((name) => readFileSync(join(dir, name)).toString("latin1"))
    .join("\n");
}

/** One output path: it is given text holding a secret and returns what it wrote. */
interface OutputPath {
  label: string;
  emit(text: string): Promise<string> | string;
}

const PATHS: OutputPath[] = [
  {
    label: "CLI stdout/stderr (every write, string or buffer)",
    emit(text) {
      const chunks: string[] = [];
      const stream = new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk.toString("utf8"));
          done();
        },
      });
      redactWrites(stream as unknown as NodeJS.WriteStream);
      stream.write(`${text}\n`);
      stream.write(Buffer.from(`${text}\n`));
      return chunks.join("");
    },
  },
  {
    label: "CLI text: answer chunks and diagnostic lines",
    emit: (text) =>
      capturingStdio(() => {
        const printer = createHumanPrinter(paletteFor(process.stderr, { NO_COLOR: "1" }));
        printer.onEvent({ type: "text", text });
        printer.onEvent({ type: "diagnostic", diagnostic: { code: "ACP_HANDSHAKE_FAILED", message: text } });
        printer.finish();
      }),
  },
  {
    label: "CLI --json line",
    emit: (text) =>
      capturingStdio(() =>
        writeJson({ type: "diagnostic", diagnostic: { code: "ACP_HANDSHAKE_FAILED", message: text } }),
      ),
  },
  {
    label: "errors: a SeatError's message, context and --json object",
    emit: (text) =>
      JSON.stringify(
        errorJson(new SeatError("ACP_HANDSHAKE_FAILED", text, { context: { stderrTail: text, argv: ["x", text] } })),
      ),
  },
  {
    label: "MCP tool result (text and structured content)",
    emit: (text) => JSON.stringify(toolResult({ answer: text, events: [{ type: "text", text }] }, text)),
  },
  {
    label: "MCP tool error",
    emit: (text) => JSON.stringify([toolError(new Error(text)), toolError(new SeatError("SESSION_BUSY", text))]),
  },
  {
    label: "MCP progress notification",
    emit(text) {
      const sent: unknown[] = [];
      const extra = {
        _meta: { progressToken: "p1" },
        sendNotification: async (n: unknown) => void sent.push(n),
      } as unknown as ToolExtra;
      progressSender(extra)(text, { type: "text", text });
      return JSON.stringify(sent);
    },
  },
  {
    label: "board page (live items and approvals)",
    emit: (text) =>
      renderBoard({
        items: [
          {
            kind: "named-session",
            id: "s1",
            name: "s1",
            agent: "codex",
            state: "waiting",
            waitingOn: text,
            since: null,
            cwd: text,
            pendingApprovals: 1,
          },
        ],
        approvals: [
          {
            id: "a1",
            category: "execute",
            title: text,
            target: { command: `deploy ${text}` },
            digest: "0".repeat(64),
            owner: { kind: "session", id: "s1" },
            askedAt: "2026-01-01T00:00:00Z",
            deadline: "2026-01-01T00:05:00Z",
          },
        ],
        token: "the-board-form-token-0000",
        notice: text,
      }),
  },
  { label: "board error page", emit: (text) => renderError(500, text) },
  {
    label: "journal (visible-seat deliveries, SQLite file)",
    emit(text) {
      const dir = freshDir();
      const journal = openJournal(join(dir, "seats.db"));
      journal.createSeat({ seatId: "seat-1", sessionId: "sid", socketPath: "/x.sock" });
      const fenced = journal.fence({ seatId: "seat-1", promptId: "p1", text });
      journal.fence({ seatId: "seat-1", promptId: "p2", text: "plain" });
      journal.markFailed("p2", text);
      journal.close();
      return `${fenced.text}\n${filesOf(dir)}`;
    },
  },
  {
    label: "session store (named-session turns, SQLite file)",
    emit(text) {
      const dir = freshDir();
      const store = new SessionStore(join(dir, "seats.db"));
      const record = store.ensure({ name: "s1", scope: "/w", agent: "codex", cwd: "/w", model: null });
      store.startTurn(record.row, "p1", text);
      store.finishTurn("p1", { state: "completed", text });
      store.close();
      return filesOf(dir);
    },
  },
  {
    label: "usage ledger (SQLite file)",
    emit(text) {
      const dir = freshDir();
      recordUsage(
        join(dir, "seats.db"),
        ledgerEntriesOf(
          { promptId: "p1", responseMeta: { modelId: text } },
          { source: "session", agent: "codex", session: text },
        ),
      );
      return filesOf(dir);
    },
  },
  {
    label: "visible seat's seat.json",
    emit(text) {
      const dir = freshDir();
      writeSeatFile(dir, { seatId: "seat-1", note: text, env: { PATH: text } } as never);
      return readFileSync(join(dir, "seat.json"), "utf8");
    },
  },
  {
    label: "notification (--on-waiting environment)",
    emit: (text) =>
      JSON.stringify(
        waitingEnv({
          kind: "named-session",
          id: "s1",
          agent: "codex",
          state: "waiting",
          waitingOn: text,
          since: null,
          cwd: text,
          pendingApprovals: 0,
        }),
      ),
  },
];

// Sources first, in order: each registers through the product's own call before any cell runs.
const known: Array<{ label: string; canary: string }> = [];
for (const source of SOURCES) known.push({ label: source.label, canary: await source.register() });

test("the matrix covers every agent profile's key variables, the Redis password both ways, the board token and an embedder's name", () => {
  for (const agent of AGENT_NAMES)
    if (agent !== "grok")
      for (const name of agentProfile(agent).keyVars ?? [])
        assert.ok(
          known.some((k) => k.label === `${agent} ${name}`),
          `${agent} ${name}`,
        );
  assert.equal(known.length, SOURCES.length);
  for (const { label, canary } of known)
    assert.ok(canary.length >= 16, `${label}: a canary too short to be told apart`);
});

for (const path of PATHS) {
  for (const { label, canary } of known) {
    test(`masked: ${label} × ${path.label}`, async () => {
      const written = await path.emit(`the agent said: key ${canary} was refused`);
      assert.ok(!written.includes(canary), `${label} leaked through ${path.label}:\n${written.slice(0, 2_000)}`);
      assert.ok(written.includes(REDACTED), `the text never came through (no ${REDACTED})`);
    });
  }
}

test("what is masked is known values only: the same line with no secret in it comes through every path untouched", async () => {
  const plain = `token="$(touch PWNED)"; api_key=sk-live-4f9a8b7c6d5e4f3a2b1c; https://alice:pa55word@example.com`;
  for (const path of PATHS) {
    const written = await path.emit(plain);
    assert.ok(
      !written.includes(REDACTED),
      `${path.label} masked text that holds no known secret:\n${written.slice(0, 2_000)}`,
    );
  }
});
