/*
 * Board server: `seat board` — the attention page and, given a fleet, bull-board's view of its queues, on a
 *   loopback address behind an access token, all of it under one secret path.
 * Owns: the HTTP server, the secret base path (`/<base>/`, derived from the token), the token check (401 without
 *   it), the cookie that carries it after the first visit (scoped to the base path), the Host check, the
 *   same-origin check on every change, the approve / deny handler, loading bull-board on use and keeping it
 *   read-only unless asked, and serving the seat home's signed Approve / Deny links (checked by links.ts) outside
 *   the base path without the token: a GET shows, only the same-origin confirm POST answers.
 * Does not own: the page (page.ts), the listing (attention/), holding approvals (an ApprovalsSource), the
 *   queues view (bull-board's own UI and API), what a job runs (fleet/job-seal.ts refuses a rewritten one).
 * Invariant: nothing outside the base path answers but 404 (but for a signed link under the links path, derived
 *   from the link key, which answers only that one approval, once), and nothing inside it without the token but 401;
 *   the browser sends the cookie only to this base path (cookies are not port-scoped, so another service on
 *   this host gets it only if asked for this secret path), and no response lets the path leak in a Referer;
 *   GET never changes anything; a change is acted on only with the token, an Origin (or Referer) of this very
 *   board and no cross-origin Sec-Fetch-Site; one click forwards one answer.
 *   Spec: docs/supervision.md#the-board, docs/board.md.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SeatError, messageOf } from "../errors.js";
import { registerSecretValue } from "../internal/redact.js";
import type { ApprovalsSource } from "../supervision/index.js";
import { listLive, type ListLiveOptions } from "../listing/index.js";
import { renderApproval, renderBoard, renderError } from "./page.js";
import { renderLinkConfirm, renderLinkOutcome } from "./link-page.js";
import {
  claimLink,
  clearBoardAddress,
  ensureLinkKey,
  isLinkUsed,
  linksBase,
  pruneUsedLinks,
  verifyLink,
  writeBoardAddress,
} from "../approval-links/index.js";

/** The environment variable a board token may come from (required for a non-loopback address). */
export const BOARD_TOKEN_ENV = "GROK_SEAT_BOARD_TOKEN";

const COOKIE = "seat_board";
const QUEUES = "queues";
const MAX_FORM_BYTES = 4_096;
const BASE_SCHEMA = "grok-seat.board-base.v1";

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
  /**
   * Let bull-board act on jobs (retry, promote, remove, clean, pause…). Default false: its view is read-only and
   * every change under the queues path is refused 405. Even with actions, a job whose spec was rewritten is
   * refused by its worker (FLEET_JOB_TAMPERED).
   */
  queueActions?: boolean;
  /**
   * Serve the Approve / Deny links of approval notifications for this seat home: the board makes the home's link
   * key once (0600), records its address there so runs can build links, and answers a signed link without the
   * token. `publicUrl` is the https address a TLS reverse proxy serves this board's root at (links use it).
   */
  links?: {
    home: string;
    publicUrl?: string;
    /**
     * The fleet's link key (derived from GROK_SEAT_FLEET_KEY, fleet/approval-links.ts): links a fleet worker signed
     * with it are served too, under their own path, and answered through the approvals source (Redis).
     */
    fleetKey?: Buffer;
  };
}

/** A running board. */
export interface Board {
  /** The board's address: its secret base path included, its token not (`http://127.0.0.1:PORT/<base>/`). */
  url: string;
  /** Where approval links start (its root address or public URL), when it serves links; undefined otherwise. */
  linksUrl?: string;
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

/** Headers on every response, bull-board's included: no Referer ever carries the secret path anywhere. */
const ALWAYS: Record<string, string> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...ALWAYS, ...headers });
  res.end(body);
}

/**
 * The board's secret base path segment, derived from its token (one-way: the path does not reveal the token, and a
 * token from GROK_SEAT_BOARD_TOKEN keeps the same address across restarts).
 */
export function boardBase(token: string): string {
  return createHmac("sha256", token).update(BASE_SCHEMA).digest("base64url").slice(0, 32);
}

/** The Host header values this board answers to: its own address and port (a DNS-rebound name is refused). */
function hostsOf(host: string, port: number): Set<string> | undefined {
  // Listening on a non-loopback address (token from the environment), the names it is reached by are not ours to know.
  if (!isLoopback(host)) return undefined;
  return new Set([
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `[::1]:${port}`,
    `${host.includes(":") ? `[${host}]` : host}:${port}`,
  ]);
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > MAX_FORM_BYTES) reject(new SeatError("BOARD_FORM_TOO_LARGE", "The form is too large."));
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

/**
 * True when the request comes from this board's own page. A browser that sends Sec-Fetch-Site (which a page cannot
 * forge) must call it same-origin — another port of this host is same-site, never same-origin — and then Origin is
 * absent or "null" (what `Referrer-Policy: no-referrer` makes a browser send) or this board. Without
 * Sec-Fetch-Site, the Origin (or, without one, the Referer) must be this board.
 */
function fromThisBoard(req: IncomingMessage, publicOrigin?: string): boolean {
  const host = req.headers.host;
  if (!host) return false;
  const self = (origin: string | undefined) =>
    origin === `http://${host}` || (publicOrigin !== undefined && origin === publicOrigin);
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined)
    return (
      site === "same-origin" &&
      (req.headers.origin === undefined || req.headers.origin === "null" || self(req.headers.origin))
    );
  const origin = req.headers.origin ?? (req.headers.referer ? safeOrigin(req.headers.referer) : undefined);
  return self(origin);
}

/**
 * The public URL a TLS reverse proxy serves the board at: https (or http on a loopback name, for an SSH tunnel
 * that maps another port), no user name, password, query or fragment.
 */
function checkPublicUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SeatError(
      "CLI_USAGE",
      `The board's public URL "${text}" is not a URL (for example https://board.example.com).`,
    );
  }
  const tunnel = url.protocol === "http:" && isLoopback(url.hostname.replace(/^\[|\]$/g, ""));
  if ((url.protocol !== "https:" && !tunnel) || url.username || url.password || url.search || url.hash) {
    throw new SeatError(
      "CLI_USAGE",
      `The board's public URL must be https (a TLS reverse proxy) or http on a loopback name (an SSH tunnel), without credentials, query or fragment; got "${text}". Approval links would otherwise travel in the clear.`,
    );
  }
  return url;
}

function safeOrigin(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Builds bull-board's express app for the fleet's queues at `basePath` (bull-board and express are loaded only here). */
async function queuesView(
  redisUrl: string,
  basePath: string,
  readOnlyMode: boolean,
): Promise<{ handler: Handler; close(): Promise<void> }> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }, { openFleetQueues }] = await Promise.all([
    import("@bull-board/api"),
    import("@bull-board/api/bullMQAdapter"),
    import("@bull-board/express"),
    import("../fleet/index.js"),
  ]);
  const fleet = await openFleetQueues(redisUrl);
  const adapter = new ExpressAdapter();
  adapter.setBasePath(basePath);
  createBullBoard({ queues: fleet.queues.map((q) => new BullMQAdapter(q, { readOnlyMode })), serverAdapter: adapter });
  return { handler: adapter.getRouter() as unknown as Handler, close: () => fleet.close() };
}

/**
 * Starts the board. A non-loopback `host` needs an explicit token (the CLI takes it from
 * GROK_SEAT_BOARD_TOKEN): BOARD_UNSAFE_ADDRESS otherwise.
 */
export async function startBoard(options: BoardOptions = {}): Promise<Board> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host) && options.token === undefined) {
    throw new SeatError(
      "BOARD_UNSAFE_ADDRESS",
      `The board would listen on ${host}, which other machines can reach; give it a token in ${BOARD_TOKEN_ENV} (a random token printed on a shared address is not enough). Nothing was started.`,
      { context: { host } },
    );
  }
  const token = options.token ?? randomBytes(24).toString("base64url");
  if (token.length < 16)
    throw new SeatError(
      "BOARD_TOKEN_INVALID",
      `The board token must be at least 16 characters long (${BOARD_TOKEN_ENV}).`,
    );
  // A secret like any key: whatever the seat writes elsewhere (a log, an error, an agent's output) masks it.
  registerSecretValue(BOARD_TOKEN_ENV, token);
  const base = `/${boardBase(token)}`;
  const queuesPath = `${base}/${QUEUES}`;
  const queueActions = options.queueActions === true;
  const queues = options.redisUrl ? await queuesView(options.redisUrl, queuesPath, !queueActions) : undefined;
  let hosts: Set<string> | undefined;
  const publicUrl = options.links?.publicUrl !== undefined ? checkPublicUrl(options.links.publicUrl) : undefined;
  const linkKey = options.links ? ensureLinkKey(options.links.home) : undefined;
  if (options.links) pruneUsedLinks(options.links.home);
  const linksPath = linkKey ? `/${linksBase(linkKey)}` : undefined;
  const fleetKey = options.links?.fleetKey;
  const fleetLinksPath = fleetKey ? `/${linksBase(fleetKey)}` : undefined;

  const page = async (res: ServerResponse, notice?: string) => {
    const [items, approvals] = await Promise.all([
      listLive({ ...(options.listing ?? {}), ...(options.approvals ? { approvals: options.approvals } : {}) }),
      options.approvals ? options.approvals.list() : Promise.resolve(null),
    ]);
    send(
      res,
      200,
      renderBoard({
        items,
        approvals,
        token,
        base: `${base}/`,
        ...(queues ? { queuesPath: `${queuesPath}/` } : {}),
        ...(notice ? { notice } : {}),
      }),
    );
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A name that is not this board's own address (DNS rebinding) gets nothing.
    if (hosts && !hosts.has(req.headers.host ?? ""))
      return send(res, 421, renderError(421, "This board answers only to its own address."));
    const url = new URL(req.url ?? "/", "http://board.invalid");
    if (linksPath && url.pathname.startsWith(`${linksPath}/`)) return answerLink(req, res, url, linkKey!, linksPath);
    if (fleetLinksPath && url.pathname.startsWith(`${fleetLinksPath}/`))
      return answerLink(req, res, url, fleetKey!, fleetLinksPath);
    // Outside the secret base path there is nothing, not even a hint that a board is here.
    if (url.pathname !== base && !url.pathname.startsWith(`${base}/`))
      return send(res, 404, renderError(404, "Not here."));
    if (req.method === "GET" && url.pathname === base) return send(res, 303, "", { location: `${base}/${url.search}` });
    const queryToken = url.searchParams.get("token") ?? undefined;
    const authorized =
      sameToken(cookieToken(req), token) || sameToken(bearer(req), token) || sameToken(queryToken, token);
    if (!authorized)
      return send(res, 401, renderError(401, "This board needs its access token."), { "www-authenticate": "Bearer" });
    if (req.method === "GET" && queryToken !== undefined) {
      // The token moves into an HttpOnly, same-site cookie sent only to this secret path, and out of the address bar.
      url.searchParams.delete("token");
      return send(res, 303, "", {
        location: `${url.pathname}${url.search}`,
        "set-cookie": `${COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=${base}/`,
      });
    }
    const changes = req.method !== "GET" && req.method !== "HEAD";
    if (changes && !fromThisBoard(req, publicUrl?.origin))
      return send(res, 403, renderError(403, "A change must come from this board's own page (same origin)."));
    const rest = url.pathname.slice(base.length) || "/";
    if (queues && (rest === `/${QUEUES}` || rest.startsWith(`/${QUEUES}/`))) {
      // Read-only unless --queue-actions: bull-board's own check, and this one for any route it might not guard.
      if (changes && !queueActions)
        return send(
          res,
          405,
          renderError(405, "The queues view is read-only (seat board --queue-actions lets it act on jobs)."),
          { allow: "GET, HEAD" },
        );
      for (const [name, value] of Object.entries(ALWAYS)) res.setHeader(name, value);
      // bull-board sees the path as parsed here (dot segments resolved), never a raw one that might differ.
      req.url = `${url.pathname.slice(queuesPath.length) || "/"}${url.search}`;
      queues.handler(req, res, (error) =>
        send(res, error ? 500 : 404, renderError(error ? 500 : 404, error ? messageOf(error) : "Not found.")),
      );
      return;
    }
    if (req.method === "GET" && rest === "/") return page(res);
    const detail = /^\/approvals\/([^/]+)$/.exec(rest);
    if (req.method === "GET" && detail) {
      let id: string;
      try {
        id = decodeURIComponent(detail[1]!);
      } catch {
        return send(res, 404, renderError(404, "Not an approval id. [APPROVAL_ANSWER_INVALID]"));
      }
      const found = options.approvals ? (await options.approvals.list()).find((a) => a.id === id) : undefined;
      return found
        ? send(res, 200, renderApproval(found, token, `${base}/`))
        : send(res, 404, renderError(404, `No pending approval has id ${id}. [APPROVAL_NOT_FOUND]`));
    }
    const answer = /^\/approvals\/([^/]+)\/(allow|deny)$/.exec(rest);
    if (req.method === "POST" && answer) {
      const form = await readForm(req);
      if (!sameToken(form.get("token") ?? undefined, token))
        return send(res, 403, renderError(403, "The form did not carry this board's token."));
      if (!options.approvals) return send(res, 404, renderError(404, "This board has no approvals source."));
      const id = decodeURIComponent(answer[1]!);
      const decision = answer[2] as "allow" | "deny";
      // The digest of the exact target the page showed: the holder refuses another target (APPROVAL_TARGET_CHANGED).
      const digest = form.get("digest") ?? undefined;
      try {
        await options.approvals.answer(id, {
          decision,
          by: "board",
          ...(digest !== undefined && digest !== "" ? { digest } : {}),
        });
      } catch (error) {
        const code = error instanceof SeatError ? ` [${error.code}]` : "";
        return send(res, 409, renderError(409, `${messageOf(error)}${code}`));
      }
      // Post/redirect/get: a reload of the result page never answers twice.
      return send(res, 303, "", { location: `${base}/?answered=${encodeURIComponent(id)}` });
    }
    return send(res, req.method === "GET" ? 404 : 405, renderError(req.method === "GET" ? 404 : 405, "Not here."));
  };

  /** A signed link from a notification: GET shows the exact call and a confirm button; the confirm's POST answers. */
  const answerLink = async (
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    key: Buffer,
    path: string,
  ): Promise<void> => {
    const home = options.links!.home;
    const refuse = (status: number, heading: string, error: unknown) =>
      send(
        res,
        status,
        renderLinkOutcome(heading, `${messageOf(error)}${error instanceof SeatError ? ` [${error.code}]` : ""}`),
      );
    if (req.method !== "GET" && req.method !== "HEAD" && req.method !== "POST")
      return send(res, 405, renderError(405, "Not here."), { allow: "GET, HEAD, POST" });
    let link;
    try {
      link = verifyLink(key, url.pathname.slice(path.length), url.searchParams);
    } catch (error) {
      return refuse(
        error instanceof SeatError && error.code === "APPROVAL_LINK_EXPIRED" ? 410 : 403,
        "This link cannot answer",
        error,
      );
    }
    const posted = req.method === "POST";
    if (posted) {
      await readForm(req);
      if (!fromThisBoard(req, publicUrl?.origin))
        return send(
          res,
          403,
          renderLinkOutcome(
            "Refused",
            "A confirm must come from the link's own page (same origin). Nothing was answered.",
          ),
        );
    }
    if (isLinkUsed(home, link))
      return refuse(
        410,
        "This link was already used",
        new SeatError(
          "APPROVAL_LINK_USED",
          "This approval link was already used. Nothing was answered again; a link answers once.",
        ),
      );
    if (!options.approvals)
      return send(res, 404, renderLinkOutcome("Nothing to answer", "This board has no approvals source."));
    if (!posted) {
      const found = (await options.approvals.list()).find((a) => a.id === link.id);
      if (!found)
        return refuse(
          404,
          "Nothing to answer",
          new SeatError(
            "APPROVAL_NOT_FOUND",
            `No pending approval has id ${link.id}: it was answered, reached its deadline, or its run ended.`,
          ),
        );
      if (found.digest !== link.digest) {
        return refuse(
          409,
          "The call changed",
          new SeatError(
            "APPROVAL_TARGET_CHANGED",
            `Approval ${link.id} now asks about another target (digest ${found.digest}) than this link was made for (${link.digest}). Nothing was answered; open the board to see the call as it is now.`,
          ),
        );
      }
      return send(res, 200, renderLinkConfirm(found, link.decision, `${url.pathname}${url.search}`));
    }
    try {
      claimLink(home, link);
      // No listing on the confirm's path: the run holding the approval checks the digest the link was signed for
      // (APPROVAL_TARGET_CHANGED, nothing runs) and decides first-wins, atomically, as for `seat approve --digest`.
      await options.approvals.answer(link.id, { decision: link.decision, by: "link", digest: link.digest });
    } catch (error) {
      const code = error instanceof SeatError ? error.code : undefined;
      return refuse(
        code === "APPROVAL_LINK_USED" ? 410 : code === "APPROVAL_NOT_FOUND" ? 404 : 409,
        "Not answered",
        error,
      );
    }
    return send(
      res,
      200,
      renderLinkOutcome(
        link.decision === "allow" ? "Approved" : "Denied",
        `Approval ${link.id} was answered: ${link.decision}. This link is now used.`,
      ),
    );
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
    throw new SeatError(
      "BOARD_LISTEN_FAILED",
      `The board could not listen on ${host}:${options.port ?? 0}: ${messageOf(error)}.`,
      { context: { host, port: options.port ?? 0 }, cause: error },
    );
  }
  const address = server.address() as AddressInfo;
  hosts = hostsOf(host, address.port);
  if (hosts && publicUrl) hosts.add(publicUrl.host);
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  // Runs of this seat home find the board here: its root address (or public URL), never its token or secret path.
  // On a shared address without a public URL there is no address a link could safely name (plain http across the
  // network): no record, so runs send no links and their notifications say how to answer instead.
  const linksUrl = publicUrl ? publicUrl.href : isLoopback(host) ? `http://${shown}:${address.port}` : undefined;
  if (options.links && linksUrl !== undefined) writeBoardAddress(options.links.home, linksUrl);
  return {
    url: `http://${shown}:${address.port}${base}/`,
    token,
    ...(options.links && linksUrl !== undefined ? { linksUrl } : {}),
    async close() {
      if (options.links && linksUrl !== undefined) clearBoardAddress(options.links.home, linksUrl);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queues?.close();
    },
  };
}
