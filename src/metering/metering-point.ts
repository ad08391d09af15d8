/*
 * Metering point: a loopback HTTP proxy in the seat's own process that an agent's model base URL points at. It
 *   forwards every request to the real upstream and reads each response's usage as it passes, so a model call the
 *   agent never reports (grok's turn summary and title calls) is still counted.
 * Owns: the listener on 127.0.0.1, forwarding (streams piped chunk by chunk, never buffered), reading usage out of
 *   Chat Completions, Responses and Messages answers (SSE or JSON), which turn each call belongs to, and refusing a
 *   call the turn's budget cannot cover (asked of `admit`) before it reaches the model.
 * Does not own: pointing the agent at it (runtime/, grok/model-route.ts), the ledger rows (side-calls.ts,
 *   usage/ledger.ts).
 * Invariant: request headers (Authorization included) pass to the upstream in memory only; nothing here logs,
 *   records or reports a header value. An upstream that cannot be reached closes the agent's connection without a
 *   response, as an unreachable model would, so the agent's own retries and the turn's diagnostics stay the same.
 * Spec: docs/spend.md#the-metering-point.
 */
import {
  createServer,
  request as httpRequest,
  Agent as HttpAgent,
  type IncomingMessage,
  type ServerResponse,
  type IncomingHttpHeaders,
} from "node:http";
import { request as httpsRequest, Agent as HttpsAgent } from "node:https";
import type { AddressInfo } from "node:net";

/** What the metering point read about one model call. */
export interface MeteredCall {
  /** The agent's request id (`x-grok-req-id`), when it sent one. */
  reqId?: string;
  /** `main` (a call of the turn's own prompt), or a side call: `turn_summary`, `title_refresh`, `title`, `other`. */
  kind: "main" | "turn_summary" | "title_refresh" | "title" | "other";
  /** The turn the call belongs to (the prompt id the seat sent), when one had begun. */
  promptId?: string;
  model?: string;
  /** Request body size in bytes (the basis of an estimate when the answer carries no usage). */
  requestBytes: number;
  inputTokens?: number;
  outputTokens?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
  /** HTTP status the upstream answered, or 0 when it never answered. */
  status: number;
  /** True when the metering point refused the call (a budget) and nothing reached the model. */
  refused?: boolean;
}

/** A model call about to be forwarded, for the admission check. */
export interface PendingCall {
  kind: MeteredCall["kind"];
  /** The agent's request id (`x-grok-req-id`), when it sent one: a main call's names its turn. */
  reqId?: string;
  promptId?: string;
  requestBytes: number;
}

/** Options for startMeteringPoint. */
export interface MeteringPointOptions {
  /**
   * The real model base URL (e.g. `https://api.x.ai/v1`) when the agent's base URL points here; its paths are
   * forwarded to this origin. Without it the point is the agent's HTTP proxy (`HTTP_PROXY`) for plain-http
   * routes: each request names its own absolute `http://` target.
   */
  upstream?: string;
  /** Called once per model call (a POST) when its answer ended (or never came). */
  onCall?: (call: MeteredCall) => void;
  /**
   * Asked before a model call (a main call or a side call) is forwarded, once its request body is in: a reason
   * refuses it with status 402 and nothing reaches the model (grok does not retry a 402).
   */
  admit?: (call: PendingCall) => string | undefined;
}

/** A running metering point. */
export interface MeteringPoint {
  /** The base URL to give the agent: `http://127.0.0.1:<port>` plus the upstream's path (e.g. `/v1`). */
  readonly baseUrl: string;
  /** `http://127.0.0.1:<port>`, for `HTTP_PROXY`. */
  readonly origin: string;
  /** Marks the start of a turn: later calls without this request id are its side calls. */
  beginTurn(promptId: string): void;
  /** Every finished call of `promptId` so far, in the order they finished. */
  callsOf(promptId: string): MeteredCall[];
  /**
   * Every call of `promptId` that has started so far, in the order they started; one still in flight carries the
   * usage read from its answer so far (the agent may act on a stream's last event before its connection ends).
   */
  startedOf(promptId: string): MeteredCall[];
  /** Drops what is kept of `promptId`'s calls (its turn was accounted for). */
  forget(promptId: string): void;
  /**
   * Resolves when no call of `promptId` is in flight, or after `maxWaitMs`; true when none was left. With
   * `sideCallGraceMs`, first waits that long for a side call of the turn to start unless one already has (grok
   * starts its turn summary as it answers the prompt).
   */
  settled(promptId: string, maxWaitMs: number, sideCallGraceMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

type Dialect = "chat" | "responses" | "messages" | "other";

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "content-length",
]);
const MAX_JSON_BYTES = 8 * 1024 * 1024;

function classify(reqId: string | undefined, promptId: string | undefined): MeteredCall["kind"] {
  if (reqId === undefined || reqId === "") return "title";
  if (reqId.startsWith("xai-turn-summary-")) return "turn_summary";
  if (reqId.startsWith("xai-title-refresh-")) return "title_refresh";
  return reqId === promptId ? "main" : "other";
}

function dialectOf(path: string): Dialect {
  if (path.endsWith("/chat/completions")) return "chat";
  if (path.endsWith("/responses")) return "responses";
  if (path.endsWith("/messages")) return "messages";
  return "other";
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/** Folds the usage one answer object carries (any of the three dialects) into `call`. */
export function readUsageInto(call: MeteredCall, payload: unknown): void {
  if (!isObj(payload)) return;
  if (typeof payload.model === "string" && call.model === undefined) call.model = payload.model;
  const response = isObj(payload.response) ? payload.response : undefined; // Responses: response.completed
  const message = isObj(payload.message) ? payload.message : undefined; // Messages: message_start
  const usage = isObj(payload.usage)
    ? payload.usage
    : isObj(response?.usage)
      ? response.usage
      : isObj(message?.usage)
        ? message.usage
        : undefined;
  if (!usage) return;
  const input = num(usage.prompt_tokens) ?? num(usage.input_tokens);
  const output = num(usage.completion_tokens) ?? num(usage.output_tokens);
  const promptDetails = isObj(usage.prompt_tokens_details)
    ? usage.prompt_tokens_details
    : isObj(usage.input_tokens_details)
      ? usage.input_tokens_details
      : undefined;
  const outputDetails = isObj(usage.completion_tokens_details)
    ? usage.completion_tokens_details
    : isObj(usage.output_tokens_details)
      ? usage.output_tokens_details
      : undefined;
  const cached = num(promptDetails?.cached_tokens) ?? num(usage.cache_read_input_tokens);
  const reasoning = num(outputDetails?.reasoning_tokens);
  // Messages reports input at message_start and output at message_delta: keep the largest of each.
  if (input !== undefined) call.inputTokens = Math.max(call.inputTokens ?? 0, input);
  if (output !== undefined) call.outputTokens = Math.max(call.outputTokens ?? 0, output);
  if (cached !== undefined) call.cachedTokens = Math.max(call.cachedTokens ?? 0, cached);
  if (reasoning !== undefined) call.reasoningTokens = Math.max(call.reasoningTokens ?? 0, reasoning);
}

/**
 * Reads SSE `data:` lines as they pass. Only a line that mentions `usage` (or, once, `model`) is parsed, so the
 * cost per chunk is a substring search; a line split across chunks is carried to the next one.
 */
function createSseReader(call: MeteredCall): (chunk: Buffer) => void {
  let carry = "";
  return (chunk) => {
    const text = carry + chunk.toString("utf8");
    const end = text.lastIndexOf("\n");
    if (end === -1) {
      carry = text.length > MAX_JSON_BYTES ? "" : text;
      return;
    }
    carry = text.slice(end + 1);
    if (!text.includes('"usage"', 0) && call.model !== undefined) return;
    for (const line of text.slice(0, end).split("\n")) {
      if (!line.startsWith("data:")) continue;
      const data = line.slice(5).trim();
      if (data === "" || data === "[DONE]") continue;
      if (!data.includes('"usage"') && call.model !== undefined) continue;
      try {
        readUsageInto(call, JSON.parse(data));
      } catch {
        // Not JSON: nothing to read here; the bytes still pass to the agent untouched.
      }
    }
  };
}

function forwardHeaders(headers: IncomingHttpHeaders, upstreamHost: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = value;
  }
  out.host = upstreamHost;
  return out;
}

/** Starts a metering point on 127.0.0.1 (an ephemeral port) forwarding to `options.upstream`. */
export async function startMeteringPoint(options: MeteringPointOptions): Promise<MeteringPoint> {
  const upstream = options.upstream === undefined ? undefined : new URL(options.upstream);
  const httpAgent = new HttpAgent({ keepAlive: true });
  const httpsAgent = new HttpsAgent({ keepAlive: true });
  const basePath = upstream ? upstream.pathname.replace(/\/+$/, "") : "";
  let currentTurn: string | undefined;
  const finished = new Map<string, MeteredCall[]>();
  const started = new Map<string, MeteredCall[]>();
  const inFlight = new Map<string, number>();
  const sideStarted = new Set<string>();
  const waiters = new Set<() => void>();
  const open = new Set<IncomingMessage>();

  const counted = new WeakSet<MeteredCall>();
  const done = (call: MeteredCall) => {
    if (counted.has(call)) return;
    counted.add(call);
    if (call.promptId !== undefined) {
      const list = finished.get(call.promptId) ?? [];
      list.push(call);
      finished.set(call.promptId, list);
      inFlight.set(call.promptId, (inFlight.get(call.promptId) ?? 1) - 1);
    }
    try {
      options.onCall?.(call);
    } catch {
      // A listener's failure never breaks the agent's model route.
    }
    for (const wake of [...waiters]) wake();
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    open.add(req);
    req.on("close", () => open.delete(req));
    const reqIdHeader = req.headers["x-grok-req-id"];
    const reqId = typeof reqIdHeader === "string" ? reqIdHeader : undefined;
    // Proxy form (`HTTP_PROXY`): the request line names its target; base-URL form: the configured upstream.
    const absolute = /^https?:\/\//i.test(req.url ?? "");
    let target: URL | undefined;
    try {
      target = absolute ? new URL(req.url!) : upstream ? new URL(req.url ?? "/", upstream.origin) : undefined;
    } catch {
      target = undefined;
    }
    if (!target) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "grok-seat metering point: no target for this request" } }));
      return;
    }
    const path = target.pathname;
    const metered = req.method === "POST" && dialectOf(path) !== "other";
    const call: MeteredCall = {
      kind: classify(reqId, currentTurn),
      requestBytes: 0,
      status: 0,
      ...(reqId ? { reqId } : {}),
    };
    // A main call names its own turn; a side call belongs to the turn that began last.
    const promptId = call.kind === "main" ? reqId : currentTurn;
    if (promptId !== undefined) call.promptId = promptId;
    if (metered && promptId !== undefined) {
      const list = started.get(promptId) ?? [];
      list.push(call);
      started.set(promptId, list);
      inFlight.set(promptId, (inFlight.get(promptId) ?? 0) + 1);
      if (call.kind !== "main") sideStarted.add(promptId);
      for (const wake of [...waiters]) wake();
    }
    const body: Buffer[] = [];
    req.on("data", (chunk: Buffer) => {
      call.requestBytes += chunk.length;
      body.push(chunk);
    });
    req.on("error", () => res.destroy());
    req.on("end", () => {
      const payload = Buffer.concat(body);
      if (metered) {
        const reason = options.admit?.({
          kind: call.kind,
          requestBytes: call.requestBytes,
          ...(reqId ? { reqId } : {}),
          ...(promptId !== undefined ? { promptId } : {}),
        });
        if (reason !== undefined) {
          call.refused = true;
          call.status = 402;
          res.writeHead(402, { "content-type": "application/json" });
          res.end(
            JSON.stringify({
              error: {
                message: `grok-seat refused this ${call.kind === "main" ? "model" : "side"} call: ${reason}`,
                type: "budget_exceeded",
                code: "BUDGET_EXCEEDED",
              },
            }),
          );
          done(call);
          return;
        }
      }
      if (metered) {
        try {
          const parsed = JSON.parse(payload.toString("utf8")) as unknown;
          if (isObj(parsed) && typeof parsed.model === "string") call.model = parsed.model;
        } catch {
          // The upstream judges a malformed body; it is forwarded as it came.
        }
      }
      // The agent joins its paths onto the base URL it was given, which has the upstream's path: forward as is.
      const headers = forwardHeaders(req.headers, target.host);
      headers["content-length"] = String(payload.length);
      const secure = target.protocol === "https:";
      const send = secure ? httpsRequest : httpRequest;
      const out = send(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port || undefined,
          method: req.method,
          path: `${target.pathname}${target.search}`,
          headers,
          agent: secure ? httpsAgent : httpAgent,
        },
        (answer) => {
          call.status = answer.statusCode ?? 0;
          const answerHeaders = forwardHeaders(answer.headers, "");
          delete answerHeaders.host;
          res.writeHead(answer.statusCode ?? 502, answerHeaders);
          const streaming = String(answer.headers["content-type"] ?? "").includes("text/event-stream");
          const readSse = metered && streaming ? createSseReader(call) : undefined;
          const json: Buffer[] | undefined = metered && !streaming ? [] : undefined;
          let jsonBytes = 0;
          answer.on("data", (chunk: Buffer) => {
            readSse?.(chunk);
            if (json && jsonBytes < MAX_JSON_BYTES) {
              json.push(chunk);
              jsonBytes += chunk.length;
            }
            if (!res.write(chunk)) {
              answer.pause();
              res.once("drain", () => answer.resume());
            }
          });
          answer.on("end", () => {
            if (json) {
              try {
                readUsageInto(call, JSON.parse(Buffer.concat(json).toString("utf8")));
              } catch {
                // Not JSON: no usage to read.
              }
            }
            res.end();
            if (metered) done(call);
          });
          answer.on("error", () => {
            res.destroy();
            if (metered) done(call);
          });
          answer.on("close", () => {
            if (metered) done(call);
          });
          res.on("close", () => {
            if (!answer.complete) answer.destroy();
          });
        },
      );
      out.on("error", () => {
        // Unreachable upstream: close the agent's connection with no answer, as the model itself would look.
        res.destroy();
        if (metered) done(call);
      });
      res.on("close", () => {
        if (!res.writableFinished) out.destroy();
      });
      out.end(payload);
    });
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    origin: `http://127.0.0.1:${port}`,
    beginTurn(promptId) {
      currentTurn = promptId;
    },
    callsOf(promptId) {
      return [...(finished.get(promptId) ?? [])];
    },
    startedOf(promptId) {
      return [...(started.get(promptId) ?? [])];
    },
    forget(promptId) {
      finished.delete(promptId);
      started.delete(promptId);
      sideStarted.delete(promptId);
      if ((inFlight.get(promptId) ?? 0) <= 0) inFlight.delete(promptId);
    },
    async settled(promptId, maxWaitMs, sideCallGraceMs = 0) {
      const deadline = Date.now() + maxWaitMs;
      const graceEnd = Date.now() + Math.min(sideCallGraceMs, maxWaitMs);
      const waiting = () => (inFlight.get(promptId) ?? 0) > 0 || (!sideStarted.has(promptId) && Date.now() < graceEnd);
      while (waiting()) {
        const left =
          Math.min(deadline, sideStarted.has(promptId) || (inFlight.get(promptId) ?? 0) > 0 ? deadline : graceEnd) -
          Date.now();
        if (left <= 0) return (inFlight.get(promptId) ?? 0) === 0;
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            clearTimeout(timer);
            resolve();
          };
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
      return true;
    },
    async close() {
      for (const req of open) req.destroy();
      server.closeAllConnections();
      httpAgent.destroy();
      httpsAgent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const wake of [...waiters]) wake();
    },
  };
}
