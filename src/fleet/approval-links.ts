/*
 * Fleet approval links: the Approve and Deny links a fleet job's `waiting` notification carries, to a `seat board
 *   --redis` that serves the fleet.
 * Owns: the fleet's link key (HMAC-SHA256 of GROK_SEAT_FLEET_KEY with a fixed label: the fleet key's value never
 *   leaves a process environment, and the derived key is never stored anywhere), the board's address record in
 *   Redis (`grok-seat:board-links`: the links URL, MAC'd with the link key so a Redis writer without the fleet key
 *   cannot point links at another host, kept alive by the board with a TTL), and signing one approval's links.
 * Does not own: the link format (approvals/link-sign.ts), serving and answering a link (board/server.ts), telling
 *   (fleet/notify.ts).
 * Invariant: without a fleet key there are no links (and the text says so); an address record whose MAC does not
 *   verify is ignored; a link expires with its approval's deadline.
 * Spec: docs/notifications.md#fleet-jobs, docs/board.md#answering-from-a-notification.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Redis } from "ioredis";
import { linkPath, signLink, type LinkDecision } from "../approvals/index.js";
import { BOARD_LINKS_KEY } from "./keys.js";

const LINK_KEY_LABEL = "grok-seat.fleet-approval-links.v1";
const ADDRESS_SCHEMA = "grok-seat.fleet-board-address.v1";
/** How long a board's address record lives without a refresh (ms); the board refreshes it at a third of that. */
export const BOARD_LINKS_TTL_MS = 60_000;

/** The fleet's link key, derived from the fleet key (GROK_SEAT_FLEET_KEY) with a fixed label. */
export function fleetLinkKey(fleetKey: string): Buffer {
  return createHmac("sha256", fleetKey).update(LINK_KEY_LABEL).digest();
}

function addressMac(key: Buffer, linksUrl: string): string {
  return createHmac("sha256", key).update(`${ADDRESS_SCHEMA}\n${linksUrl}`).digest("base64url");
}

/** The record a board leaves in Redis: its links URL and a MAC over it. */
export function boardLinksRecord(key: Buffer, linksUrl: string): string {
  return JSON.stringify({ schema: ADDRESS_SCHEMA, links_url: linksUrl, mac: addressMac(key, linksUrl) });
}

/** Publishes (or refreshes) this board's address for the fleet's links, for BOARD_LINKS_TTL_MS. */
export async function publishBoardLinks(redis: Redis, key: Buffer, linksUrl: string): Promise<void> {
  await redis.set(BOARD_LINKS_KEY, boardLinksRecord(key, linksUrl), "PX", BOARD_LINKS_TTL_MS);
}

/** Removes the address record if it is still this board's (a newer board's stays). */
export async function withdrawBoardLinks(redis: Redis, key: Buffer, linksUrl: string): Promise<void> {
  const mine = boardLinksRecord(key, linksUrl);
  // Compare and delete in one step: a board that started since keeps its record.
  await redis.eval(
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
    1,
    BOARD_LINKS_KEY,
    mine,
  );
}

/** The links URL a board serving this fleet published, when its record verifies with `key`. */
export async function readBoardLinks(redis: Redis, key: Buffer): Promise<string | undefined> {
  const text = await redis.get(BOARD_LINKS_KEY);
  if (text === null) return undefined;
  try {
    const record = JSON.parse(text) as { schema?: unknown; links_url?: unknown; mac?: unknown };
    if (record.schema !== ADDRESS_SCHEMA || typeof record.links_url !== "string" || typeof record.mac !== "string")
      return undefined;
    const expected = Buffer.from(addressMac(key, record.links_url));
    const got = Buffer.from(record.mac);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) return undefined;
    const url = new URL(record.links_url);
    if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
    return record.links_url;
  } catch {
    return undefined;
  }
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
