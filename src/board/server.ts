/*
 * Board server: `seat board` — the attention page and, given a fleet, bull-board's view of its queues, on a
 *   loopback address behind an access token.
 * Owns: the HTTP server, the token check (401 without it), the cookie that carries it after the first visit,
 *   the same-origin check on every POST, the approve / deny handler, and loading bull-board on use.
 * Does not own: the page (page.ts), the listing (attention/), holding approvals (an ApprovalsSource), the
 *   queues view (bull-board's own UI and API).
 * Invariant: no request without the token gets anything but 401; GET never changes anything; a POST is acted
 *   on only with the token in its form (or header) and an Origin (or Referer) of this very board; one click
 *   forwards one answer.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SeatError, messageOf } from "../errors.js";
import { registerSecretValue } from "../internal/redact.js";
import { listLive, type ListLiveOptions } from "../attention/listing.js";
import type { ApprovalsSource } from "../attention/approvals-source.js";
import { renderApproval, renderBoard, renderError } from "./page.js";

/** The environment variable a board token may come from (required for a non-loopback address). */
export const BOARD_TOKEN_ENV = "GROK_SEAT_BOARD_TOKEN";

const COOKIE = "seat_board";
const QUEUES_PATH = "/queues";
const MAX_FORM_BYTES = 4_096;

/** Options of startBoard. */
export interface BoardOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** The access token (default: a fresh random one). */
  token?: string;
  /** What the attention listing reads (seat home, fleet client). */
  listing?: ListLiveOptions;
  /** Where pending approvals come from and answers go. */
  approvals?: ApprovalsSource;
  /** Redis URL of the fleet whose queues bull-board shows (none: no queues view). */
  redisUrl?: string;
}

/** A running board. */
export interface Board {
  /** Base URL (without the token). */
  url: string;
  token: string;
  close(): Promise<void>;
}

/** True for an address that only this machine reaches. */
export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name === COOKIE) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  return header?.startsWith("Bearer ") ? header.slice(7) : undefined;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", "x-content-type-options": "nosniff", "x-frame-options": "DENY", "referrer-policy": "same-origin", ...headers });
  res.end(body);
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > MAX_FORM_BYTES) reject(new SeatError("CLI_USAGE", "The form is too large."));
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

/** True when the request's Origin (or, without one, its Referer) is this board itself. */
function fromThisBoard(req: IncomingMessage): boolean {
  const host = req.headers.host;
  if (!host) return false;
  const origin = req.headers.origin ?? (req.headers.referer ? safeOrigin(req.headers.referer) : undefined);
  return origin === `http://${host}`;
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Builds bull-board's express app for the fleet's queues (bull-board and express are loaded only here). */
async function queuesView(redisUrl: string): Promise<{ handler: Handler; close(): Promise<void> }> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }, { openFleetQueues }] = await Promise.all([
    import("@bull-board/api"),
    import("@bull-board/api/bullMQAdapter"),
    import("@bull-board/express"),
    import("../fleet/index.js"),
  ]);
  const fleet = await openFleetQueues(redisUrl);
  const adapter = new ExpressAdapter();
  adapter.setBasePath(QUEUES_PATH);
  createBullBoard({ queues: fleet.queues.map((q) => new BullMQAdapter(q)), serverAdapter: adapter });
  return { handler: adapter.getRouter() as unknown as Handler, close: () => fleet.close() };
}

/**
 * Starts the board. A non-loopback `host` needs an explicit token (the CLI takes it from
 * GROK_SEAT_BOARD_TOKEN): BOARD_UNSAFE_ADDRESS otherwise.
 */
export async function startBoard(options: BoardOptions = {}): Promise<Board> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host) && options.token === undefined) {
    throw new SeatError("BOARD_UNSAFE_ADDRESS", `The board would listen on ${host}, which other machines can reach; give it a token in ${BOARD_TOKEN_ENV} (a random token printed on a shared address is not enough). Nothing was started.`, { context: { host } });
  }
  const token = options.token ?? randomBytes(24).toString("base64url");
  if (token.length < 16) throw new SeatError("CLI_USAGE", `The board token must be at least 16 characters long (${BOARD_TOKEN_ENV}).`);
  // A secret like any key: whatever the seat writes elsewhere (a log, an error, an agent's output) masks it.
  registerSecretValue(BOARD_TOKEN_ENV, token);
  const queues = options.redisUrl ? await queuesView(options.redisUrl) : undefined;

  const page = async (res: ServerResponse, notice?: string) => {
    const [items, approvals] = await Promise.all([listLive({ ...(options.listing ?? {}), ...(options.approvals ? { approvals: options.approvals } : {}) }), options.approvals ? options.approvals.list() : Promise.resolve(null)]);
    send(res, 200, renderBoard({ items, approvals, token, ...(queues ? { queuesPath: `${QUEUES_PATH}/` } : {}), ...(notice ? { notice } : {}) }));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://board.invalid");
    const queryToken = url.searchParams.get("token") ?? undefined;
    const authorized = sameToken(cookieToken(req), token) || sameToken(bearer(req), token) || sameToken(queryToken, token);
    if (!authorized) return send(res, 401, renderError(401, "This board needs its access token."), { "www-authenticate": "Bearer" });
    if (req.method === "GET" && queryToken !== undefined) {
      // The token moves into an HttpOnly, same-site cookie and out of the address bar.
      url.searchParams.delete("token");
      return send(res, 303, "", { location: `${url.pathname}${url.search}`, "set-cookie": `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/` });
    }
    if (req.method !== "GET" && req.method !== "HEAD" && !fromThisBoard(req)) return send(res, 403, renderError(403, "A change must come from this board's own page (same origin)."));
    if (queues && (url.pathname === QUEUES_PATH || url.pathname.startsWith(`${QUEUES_PATH}/`))) {
      req.url = (req.url ?? "/").slice(QUEUES_PATH.length) || "/";
      queues.handler(req, res, (error) => send(res, error ? 500 : 404, renderError(error ? 500 : 404, error ? messageOf(error) : "Not found.")));
      return;
    }
    if (req.method === "GET" && url.pathname === "/") return page(res);
    const detail = /^\/approvals\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && detail) {
      let id: string;
      try {
        id = decodeURIComponent(detail[1]!);
      } catch {
        return send(res, 404, renderError(404, "Not an approval id. [APPROVAL_ANSWER_INVALID]"));
      }
      const found = options.approvals ? (await options.approvals.list()).find((a) => a.id === id) : undefined;
      return found ? send(res, 200, renderApproval(found, token)) : send(res, 404, renderError(404, `No pending approval has id ${id}. [APPROVAL_NOT_FOUND]`));
    }
    const answer = /^\/approvals\/([^/]+)\/(allow|deny)$/.exec(url.pathname);
    if (req.method === "POST" && answer) {
      const form = await readForm(req);
      if (!sameToken(form.get("token") ?? undefined, token)) return send(res, 403, renderError(403, "The form did not carry this board's token."));
      if (!options.approvals) return send(res, 404, renderError(404, "This board has no approvals source."));
      const id = decodeURIComponent(answer[1]!);
      const decision = answer[2] as "allow" | "deny";
      // The digest of the exact target the page showed: the holder refuses another target (APPROVAL_TARGET_CHANGED).
      const digest = form.get("digest") ?? undefined;
      try {
        await options.approvals.answer(id, { decision, by: "board", ...(digest !== undefined && digest !== "" ? { digest } : {}) });
      } catch (error) {
        const code = error instanceof SeatError ? ` [${error.code}]` : "";
        return send(res, 409, renderError(409, `${messageOf(error)}${code}`));
      }
      // Post/redirect/get: a reload of the result page never answers twice.
      return send(res, 303, "", { location: `/?answered=${encodeURIComponent(id)}` });
    }
    if (req.method === "GET" && url.pathname === "/favicon.ico") return send(res, 404, "");
    return send(res, req.method === "GET" ? 404 : 405, renderError(req.method === "GET" ? 404 : 405, "Not here."));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, renderError(500, messageOf(error)));
      else res.end();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
  } catch (error) {
    await queues?.close();
    throw new SeatError("BOARD_LISTEN_FAILED", `The board could not listen on ${host}:${options.port ?? 0}: ${messageOf(error)}.`, { context: { host, port: options.port ?? 0 }, cause: error });
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${shown}:${address.port}/`,
    token,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queues?.close();
    },
  };
}
