/*
 * R4 bad input: property-based fuzzing (fast-check) of everything grok-seat parses from outside —
 *   `grok --version` and `grok models` output, ACP lines from the agent (fed through connectAcp + SessionCore over
 *   an in-memory ndjson stream), and leader socket frames (FrameDecoder).
 * Owns: runFuzz(): per-target case counts and failures; a failure is a thrown non-SeatError, an unclear error,
 *   a rejected prompt(), a turn that never resolves, or an uncaught exception/rejection.
 * Does not own: the code under test (src/grok, src/acp, src/leader) or reporting (torture.ts).
 */
import fc from "fast-check";
import * as acp from "@agentclientprotocol/sdk";
import { connectAcp, SessionCore } from "../src/acp/index.js";
import { SeatError } from "../src/errors.js";
import { parseGrokModels, parseGrokVersion } from "../src/grok/index.js";
import { FrameDecoder, MAX_FRAME_BYTES, encodeFrame } from "../src/leader/index.js";

/** Cases and failures of one fuzz target. */
export interface FuzzTarget {
  target: string;
  cases: number;
  failures: number;
  /** The counterexample fast-check shrank to, when one failed. */
  counterexample?: string;
}

/** The R4 result. */
export interface FuzzResult {
  targets: FuzzTarget[];
  cases: number;
  failures: number;
  uncaught: number;
}

const hex = fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 7, maxLength: 40 });
const nat = fc.nat({ max: 999 });

function isClearFrameError(error: unknown): boolean {
  return error instanceof SeatError && error.code === "LEADER_FRAME_INVALID" && error.message.length > 20;
}

function versionTarget(numRuns: number): FuzzTarget {
  const noise = fc.oneof(
    fc.string({ unit: "binary", maxLength: 200 }),
    fc
      .tuple(nat, nat, nat, hex, fc.string({ maxLength: 12 }))
      .map(([a, b, c, h, tail]) => `grok ${a}.${b}.${c} (${h})${tail}`),
    fc.constantFrom(
      "grok 1.0.41 (4220f3b224a6)\n",
      "grok 1.0.41 (4220f3b224a6) [stable]",
      "grok  1.0.41 (x)",
      "",
      "\n",
      "grok 1.0.41 (4220f3b224a6)\r\n\r\n",
    ),
  );
  const valid = fc.tuple(
    nat,
    nat,
    nat,
    hex,
    fc.option(fc.constantFrom("stable", "beta", "nightly_2"), { nil: undefined }),
  );
  const out = fc.check(
    fc.property(
      fc.oneof(
        noise.map((s) => ({ s, expect: undefined })),
        valid.map(([a, b, c, h, ch]) => ({
          s: `grok ${a}.${b}.${c} (${h})${ch ? ` [${ch}]` : ""}\n`,
          expect: { version: `${a}.${b}.${c}`, sha: h, ch },
        })),
      ),
      ({ s, expect }) => {
        const parsed = parseGrokVersion(s);
        if (parsed !== null && !(/^\d+\.\d+\.\d+/.test(parsed.version) && /^[0-9a-f]{7,40}$/.test(parsed.sha)))
          return false;
        if (expect)
          return (
            parsed !== null &&
            parsed.version === expect.version &&
            parsed.sha === expect.sha &&
            parsed.channel === expect.ch
          );
        return true;
      },
    ),
    { numRuns },
  );
  return summary("parseGrokVersion", out);
}

function modelsTarget(numRuns: number): FuzzTarget {
  const line = fc.oneof(
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.constantFrom(
      "Available models:",
      "You are using XAI_API_KEY",
      "You are not authenticated.",
      "Default model: grok-4.5",
      "Model 'x' is using its own API key.",
    ),
    fc
      .tuple(
        fc.constantFrom("*", "-", "+", ""),
        fc.string({ maxLength: 30 }),
        fc.constantFrom("", " (default)", " (DEFAULT)"),
      )
      .map(([b, id, d]) => `  ${b} ${id}${d}`),
  );
  const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$/;
  const out = fc.check(
    fc.property(fc.array(line, { maxLength: 20 }), fc.constantFrom("\n", "\r\n"), (lines, eol) => {
      const parsed = parseGrokModels(lines.join(eol));
      const ids = parsed.models.map((m) => m.id);
      if (!ids.every((id) => MODEL_ID.test(id)) || new Set(ids).size !== ids.length) return false;
      if (parsed.models.length === 0 && !parsed.reason) return false;
      return ["api-key", "model-key", "logged-in", "not-authenticated", "unknown"].includes(parsed.auth);
    }),
    { numRuns },
  );
  return summary("parseGrokModels", out);
}

function framesTarget(numRuns: number): FuzzTarget[] {
  // Arbitrary bytes in arbitrary chunks: frames out, or one clear LEADER_FRAME_INVALID that poisons the decoder.
  const raw = fc.check(
    fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), fc.boolean(), (chunks, end) => {
      const decoder = new FrameDecoder({ maxBytes: 1024 });
      try {
        for (const chunk of chunks)
          for (const frame of decoder.push(chunk))
            if (typeof frame.type !== "string" || frame.type === "") return false;
        if (end) decoder.end();
        return true;
      } catch (error) {
        if (!isClearFrameError(error)) return false;
        try {
          decoder.push(new Uint8Array([1]));
          return false;
        } catch (again) {
          return again === error;
        }
      }
    }),
    { numRuns },
  );
  // Valid frames, split at arbitrary points, decode to exactly what was encoded.
  const frame = fc.record({ type: fc.string({ minLength: 1, maxLength: 12 }), payload: fc.jsonValue({ maxDepth: 3 }) });
  const split = fc.check(
    fc.property(
      fc.array(frame, { minLength: 1, maxLength: 5 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      (frames, cuts) => {
        const bytes = Buffer.concat(frames.map((f) => encodeFrame(f)));
        const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        const decoder = new FrameDecoder();
        const got: unknown[] = [];
        let at = 0;
        for (const p of [...points, bytes.length]) {
          got.push(...decoder.push(bytes.subarray(at, p)));
          at = p;
        }
        decoder.end();
        return JSON.stringify(got) === JSON.stringify(frames.map((f) => JSON.parse(JSON.stringify(f))));
      },
    ),
    { numRuns },
  );
  // Hostile headers and bodies: > 64 MiB, truncated, non-JSON, non-object, no type.
  const hostile = fc.oneof(
    fc
      .integer({ min: MAX_FRAME_BYTES + 1, max: 0xffffffff })
      .map((n) => ({ kind: "too-big", bytes: header(n), end: false })),
    fc
      .tuple(fc.integer({ min: 1, max: 4096 }), fc.nat({ max: 4095 }))
      .filter(([n, have]) => have < n)
      .map(([n, have]) => ({
        kind: "truncated",
        bytes: Buffer.concat([header(n), Buffer.alloc(have, 0x20)]),
        end: true,
      })),
    fc
      .string({ unit: "binary", minLength: 1, maxLength: 40 })
      .filter((s) => !isJsonObjectWithType(s))
      .map((s) => ({ kind: "non-json", bytes: withHeader(Buffer.from(s)), end: false })),
    fc
      .uint8Array({ minLength: 1, maxLength: 3 })
      .map((b) => ({ kind: "short-header", bytes: Buffer.from(b), end: true })),
  );
  const bad = fc.check(
    fc.property(hostile, ({ kind, bytes, end }) => {
      const decoder = new FrameDecoder();
      try {
        decoder.push(bytes);
        if (end) decoder.end();
        return false;
      } catch (error) {
        // A refused length must not have buffered its body (nothing is pending after the failure).
        return isClearFrameError(error) && (kind !== "too-big" || decoder.pendingBytes === 0);
      }
    }),
    { numRuns },
  );
  return [
    summary("FrameDecoder: random bytes", raw),
    summary("FrameDecoder: split valid frames", split),
    summary("FrameDecoder: hostile frames", bad),
  ];
}

function summary<T>(target: string, out: fc.RunDetails<T>): FuzzTarget {
  return {
    target,
    cases: out.numRuns,
    failures: out.failed ? 1 : 0,
    ...(out.failed ? { counterexample: JSON.stringify(out.counterexample).slice(0, 2000) } : {}),
  };
}

function header(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n, 0);
  return b;
}

function withHeader(body: Buffer): Buffer {
  return Buffer.concat([header(body.length), body]);
}

function isJsonObjectWithType(s: string): boolean {
  try {
    const v = JSON.parse(s) as unknown;
    return (
      typeof v === "object" &&
      v !== null &&
      !Array.isArray(v) &&
      typeof (v as { type?: unknown }).type === "string" &&
      (v as { type: string }).type !== ""
    );
  } catch {
    return false;
  }
}

/** One in-memory agent: we write lines as the agent and read (always drain, like a pipe buffer) what the client sends. */
function memoryAgent() {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const fromClient = new TransformStream<Uint8Array, Uint8Array>();
  const stream = acp.ndJsonStream(fromClient.writable, toClient.readable, { maxMessageBytes: 64 * 1024 });
  const writer = toClient.writable.getWriter();
  const reader = fromClient.readable.getReader();
  const enc = new TextEncoder();
  const decoder = new TextDecoder();
  let firstPrompt: (value: { id: number | string } | undefined) => void = () => undefined;
  const prompt = new Promise<{ id: number | string } | undefined>((resolve) => (firstPrompt = resolve));
  void (async () => {
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
        const msg = JSON.parse(pending.slice(0, nl)) as { id?: number | string; method?: string };
        pending = pending.slice(nl + 1);
        if (msg.method === "session/prompt" && msg.id !== undefined) firstPrompt({ id: msg.id });
      }
    }
    firstPrompt(undefined);
  })();
  return {
    stream,
    // Not awaited: after a fatal line the client stops reading, and a pending write would stall the case.
    write: (line: string) => void writer.write(enc.encode(`${line}\n`)).catch(() => undefined),
    promptRequest: () => prompt,
    close: () => {
      void writer.close().catch(() => undefined);
      void reader.cancel().catch(() => undefined);
    },
  };
}

const SID = "fuzz-session";

function acpLine(): fc.Arbitrary<string> {
  const id = fc.oneof(
    fc.constant(0),
    fc.constant(-1),
    fc.integer(),
    fc.string({ maxLength: 6 }),
    fc.constant(null),
    fc.double(),
  );
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  const update = fc.oneof(
    fc.record(
      {
        sessionUpdate: fc.constantFrom(
          "agent_message_chunk",
          "agent_thought_chunk",
          "tool_call",
          "tool_call_update",
          "plan",
          "usage_update",
          "bogus",
        ),
        content: anyJson,
        toolCallId: anyJson,
        title: anyJson,
        entries: anyJson,
        status: anyJson,
      },
      { requiredKeys: ["sessionUpdate"] },
    ),
    anyJson,
  );
  return fc.oneof(
    fc.string({ unit: "binary", maxLength: 60 }),
    fc.constantFrom(
      "{",
      "[]",
      "[1,2]",
      "null",
      "42",
      '"str"',
      "{}",
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"2.0","id":0}',
      '{"jsonrpc":"2.0","id":0,"result":{}}',
    ),
    fc.record({ jsonrpc: fc.constant("2.0"), id, result: anyJson }).map((m) => JSON.stringify(m)),
    fc
      .record({ jsonrpc: fc.constant("2.0"), id, error: fc.record({ code: fc.integer(), message: fc.string() }) })
      .map((m) => JSON.stringify(m)),
    fc
      .record({
        jsonrpc: fc.constant("2.0"),
        method: fc.constant("session/update"),
        params: fc.record(
          { sessionId: fc.oneof(fc.constant(SID), fc.string({ maxLength: 4 })), update, _meta: anyJson },
          { requiredKeys: ["sessionId", "update"] },
        ),
      })
      .map((m) => JSON.stringify(m)),
    fc
      .record({
        jsonrpc: fc.constant("2.0"),
        method: fc.constantFrom(
          "_x.ai/queue/changed",
          "_x.ai/session/prompt_complete",
          "_x.ai/mcp_initialized",
          "_x.ai/session_notification",
          "unknown/notification",
        ),
        params: anyJson,
      })
      .map((m) => JSON.stringify(m)),
    fc
      .record({
        jsonrpc: fc.constant("2.0"),
        id,
        method: fc.constantFrom("session/request_permission", "fs/read_text_file", "terminal/create", "made/up"),
        params: anyJson,
      })
      .map((m) => JSON.stringify(m)),
    fc.integer({ min: 64 * 1024, max: 200 * 1024 }).map((n) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: SID,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x".repeat(n) } },
        },
      }),
    ),
  );
}

async function acpTarget(numRuns: number): Promise<FuzzTarget> {
  // The SDK reports each bad message on console.error; thousands of cases would bury the figures.
  const error = console.error;
  console.error = () => undefined;
  try {
    return summary("ACP lines → connectAcp + SessionCore", await acpCheck(numRuns));
  } finally {
    console.error = error;
  }
}

function acpCheck(numRuns: number) {
  return fc.check(
    fc.asyncProperty(
      fc.array(acpLine(), { maxLength: 8 }),
      fc.constantFrom("answer", "wrong-id-then-answer", "close"),
      async (lines, ending) => {
        const agent = memoryAgent();
        let peer: Awaited<ReturnType<typeof connectAcp>> | undefined;
        const core: SessionCore = new SessionCore(
          (peer = await connectAcp(agent.stream, {
            onSessionUpdate: (n) => core.handleUpdate(n),
            onExtNotification: (m, p) => core.handleExt(m, p),
            onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }),
          })),
          { onEvent: () => undefined, onText: () => undefined },
        );
        core.bind(SID);
        try {
          const turn = core.prompt("fuzz", { promptId: "fuzz-prompt" });
          const request = await agent.promptRequest();
          for (const line of lines) agent.write(line);
          if (request && ending !== "close") {
            if (ending === "wrong-id-then-answer")
              agent.write(
                JSON.stringify({
                  jsonrpc: "2.0",
                  id: typeof request.id === "number" ? request.id + 1000 : `${request.id}x`,
                  result: { stopReason: "end_turn" },
                }),
              );
            agent.write(
              JSON.stringify({
                jsonrpc: "2.0",
                id: request.id,
                result: { stopReason: "end_turn", _meta: { promptId: "fuzz-prompt", sessionId: SID } },
              }),
            );
          } else {
            agent.close();
          }
          const settled = await Promise.race([
            turn.then(
              (r) => ({ r }),
              (e: unknown) => ({ rejected: e }),
            ),
            new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), 5_000)),
          ]);
          if (settled === "hung" || "rejected" in settled) return false;
          // A turn either ended as the agent said, or carries a diagnostic a human can act on.
          return (
            settled.r.stopReason === "end_turn" ||
            (settled.r.diagnostic !== undefined && settled.r.diagnostic.message.length > 10)
          );
        } finally {
          agent.close();
          peer.close();
        }
      },
    ),
    { numRuns },
  );
}

/** Runs every target; `scale` multiplies the case counts (1 → about 110k cases). */
export async function runFuzz({ scale = 1 }: { scale?: number } = {}): Promise<FuzzResult> {
  let uncaught = 0;
  const count = () => void uncaught++;
  process.on("uncaughtException", count);
  process.on("unhandledRejection", count);
  try {
    const n = (k: number) => Math.max(1, Math.round(k * scale));
    const targets = [
      versionTarget(n(30_000)),
      modelsTarget(n(25_000)),
      ...framesTarget(n(15_000)),
      await acpTarget(n(5_000)),
    ];
    // Give stray rejections a tick to surface before counting them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return {
      targets,
      cases: targets.reduce((a, t) => a + t.cases, 0),
      failures: targets.reduce((a, t) => a + t.failures, 0) + uncaught,
      uncaught,
    };
  } finally {
    process.off("uncaughtException", count);
    process.off("unhandledRejection", count);
  }
}
