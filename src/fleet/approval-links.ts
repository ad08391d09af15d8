/*
 * Fleet approval links: the Approve and Deny links a fleet job's `waiting` notification carries, to a `seat board
 *   --redis` that serves the fleet.
 * Owns: the fleet's link key (HMAC-SHA256 of GROK_SEAT_FLEET_KEY with a fixed label: the fleet key's value never
 *   leaves a process environment, and the derived key is never stored anywhere), the board's address record in
 *   Redis (`grok-seat:board-links`: the links URL, MAC'd with the link key so a Redis writer without the fleet key
 *   cannot point links at another host, kept alive by the board with a TTL), and signing one approval's links.
 * Does not own: the link format (approval-links/link-sign.ts), serving and answering a link (board/server.ts), telling
 *   (fleet/notify.ts).
 * Invariant: without a fleet key there are no links (and the text says so); an address record whose MAC does not
 *   verify is ignored; a link expires with its approval's deadline.
 * Spec: docs/notifications.md#fleet-jobs, docs/board.md#answering-from-a-notification.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Redis } from "ioredis";
import { linkPath, signLink, type LinkDecision } from "../approval-links/index.js";
import { BOARD_LINKS_KEY } from "./keys.js";

const LINK_KEY_LABEL = "grok-seat.fleet-approval-links.v1";
const ADDRESS_SCHEMA = "grok-seat.fleet-board-address.v1";
/** How long a board's address record lives without a refresh (ms); the board refreshes it at a third of that. */
export const BOARD_LINKS_TTL_MS = 60_000;

/** The fleet's link key, derived from the fleet key (GROK_SEAT_FLEET_KEY) with a fixed label. */
export function fleetLinkKey(fleetKey: string): Buffer {
  return createHmac("sha256", fleetKey).update(LINK_KEY_LABEL).digest();
}

function addressMac(key: Buffer, linksUrl: string, expires: number): string {
  return createHmac("sha256", key).update(`${ADDRESS_SCHEMA}\n${linksUrl}\n${expires}`).digest("base64url");
}

/**
 * The record a board leaves in Redis: its links URL, until when it holds (ms since the epoch), and a MAC over both —
 * so an old record written back by someone who can write Redis is refused once its time is past.
 */
export function boardLinksRecord(key: Buffer, linksUrl: string, expires: number): string {
  return JSON.stringify({
    schema: ADDRESS_SCHEMA,
    links_url: linksUrl,
    expires,
    mac: addressMac(key, linksUrl, expires),
  });
}

/** The links URL in a record `text`, when it verifies with `key` and has not expired at `now`; undefined otherwise. */
export function verifyBoardLinksRecord(key: Buffer, text: string, now = Date.now()): string | undefined {
  try {
    const record = JSON.parse(text) as { schema?: unknown; links_url?: unknown; expires?: unknown; mac?: unknown };
    if (
      record.schema !== ADDRESS_SCHEMA ||
      typeof record.links_url !== "string" ||
      typeof record.expires !== "number" ||
      !Number.isSafeInteger(record.expires) ||
      typeof record.mac !== "string"
    )
      return undefined;
    const expected = Buffer.from(addressMac(key, record.links_url, record.expires));
    const got = Buffer.from(record.mac);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) return undefined;
    if (record.expires <= now) return undefined;
    const url = new URL(record.links_url);
    if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
    return record.links_url;
  } catch {
    return undefined;
  }
}

/** Publishes (or refreshes) this board's address for the fleet's links, for BOARD_LINKS_TTL_MS; returns the record. */
export async function publishBoardLinks(redis: Redis, key: Buffer, linksUrl: string): Promise<string> {
  const record = boardLinksRecord(key, linksUrl, Date.now() + BOARD_LINKS_TTL_MS);
  await redis.set(BOARD_LINKS_KEY, record, "PX", BOARD_LINKS_TTL_MS);
  return record;
}

/** Removes the address record if it is still `record`, the one this board last published (a newer board's stays). */
export async function withdrawBoardLinks(redis: Redis, record: string): Promise<void> {
  // Compare and delete in one step: a board that started since keeps its record.
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
    1,
    BOARD_LINKS_KEY,
    record,
  );
}

/** The links URL a board serving this fleet published, when its record verifies with `key` and holds now. */
export async function readBoardLinks(redis: Redis, key: Buffer): Promise<string | undefined> {
  const text = await redis.get(BOARD_LINKS_KEY);
  return text === null ? undefined : verifyBoardLinksRecord(key, text);
}

/**
 * The Approve and Deny URLs of one fleet approval, or undefined when no board serves this fleet's links now (no
 * record, or one that does not verify) or the deadline is not a date.
 */
export async function fleetApprovalLinks(
  redis: Redis,
  key: Buffer,
  approval: { id: string; digest: string; deadline: string },
): Promise<{ approve_url: string; deny_url: string } | undefined> {
  const root = await readBoardLinks(redis, key);
  const deadline = new Date(approval.deadline);
  if (root === undefined || Number.isNaN(deadline.getTime())) return undefined;
  const base = root.replace(/\/+$/, "");
  const url = (decision: LinkDecision) =>
    `${base}${linkPath(key, signLink(key, { id: approval.id, decision, digest: approval.digest, deadline }))}`;
  return { approve_url: url("allow"), deny_url: url("deny") };
}
