/*
 * Approval link signing: the Approve and Deny links an approval's notification carries, as signed text — no I/O.
 * Owns: the link's fields and signature (HMAC-SHA256 over approval id, decision, digest and expiry with a link key),
 *   the secret path segment links are served under (derived from the key), and checking a link.
 * Does not own: where a key comes from (a seat home's `board/link.key`, approval-links/links.ts; a fleet's key derived from
 *   GROK_SEAT_FLEET_KEY, fleet/approval-links.ts), used-link records, serving (board/server.ts).
 * Invariant: a link names nothing but the approval id, the decision, the digest, the expiry and its signature; a
 *   link whose signature fails is refused before anything else is read from it.
 * Spec: docs/board.md#answering-from-a-notification.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { SeatError } from "../errors.js";

const LINK_SCHEMA = "grok-seat.approval-link.v1";
const PATH_SCHEMA = "grok-seat.board-links-path.v1";
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const DIGEST = /^[0-9a-f]{64}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/** The decision a link carries (the board's allow / deny). */
export type LinkDecision = "allow" | "deny";

/** One link's signed fields. */
export interface ApprovalLink {
  id: string;
  decision: LinkDecision;
  digest: string;
  /** Unix seconds: the approval's deadline, after which the link is refused. */
  expires: number;
  signature: string;
}

/** The path segment the links are served under, derived from the key (a scanner without a link finds nothing). */
export function linksBase(key: Buffer): string {
  return `l-${createHmac("sha256", key).update(PATH_SCHEMA).digest("base64url").slice(0, 24)}`;
}

function signed(key: Buffer, link: Omit<ApprovalLink, "signature">): string {
  return createHmac("sha256", key)
    .update(`${LINK_SCHEMA}\n${link.id}\n${link.decision}\n${link.digest}\n${link.expires}`)
    .digest("base64url");
}

/** Signs a link for `decision` on the approval `id` about `digest`, valid until `deadline`. */
export function signLink(
  key: Buffer,
  input: { id: string; decision: LinkDecision; digest: string; deadline: Date },
): ApprovalLink {
  const link = {
    id: input.id,
    decision: input.decision,
    digest: input.digest,
    expires: Math.ceil(input.deadline.getTime() / 1000),
  };
  return { ...link, signature: signed(key, link) };
}

/** A link's path and query under the board's links base (`/<linksBase>/ID/DECISION?d=…&e=…&s=…`). */
export function linkPath(key: Buffer, link: ApprovalLink): string {
  return `/${linksBase(key)}/${encodeURIComponent(link.id)}/${link.decision}?d=${link.digest}&e=${link.expires}&s=${link.signature}`;
}

function invalidLink(detail: string): SeatError {
  return new SeatError(
    "APPROVAL_LINK_INVALID",
    `This approval link does not verify (${detail}); it may have been altered or cut. Nothing was answered. Answer with \`seat approve ID\` or on the board.`,
  );
}

/**
 * Checks a link's fields and signature, then its expiry: APPROVAL_LINK_INVALID (bad signature or shape) or
 * APPROVAL_LINK_EXPIRED. `rest` is the path after the links base (`/ID/DECISION`).
 */
export function verifyLink(key: Buffer, rest: string, query: URLSearchParams, now = Date.now()): ApprovalLink {
  const match = /^\/([^/]+)\/(allow|deny)$/.exec(rest);
  if (!match) throw invalidLink("not a link path");
  let id: string;
  try {
    id = decodeURIComponent(match[1]!);
  } catch {
    throw invalidLink("not an approval id");
  }
  const digest = query.get("d") ?? "";
  const expiresText = query.get("e") ?? "";
  const signature = query.get("s") ?? "";
  if (!ID.test(id) || !DIGEST.test(digest) || !/^[0-9]{1,12}$/.test(expiresText) || !SIGNATURE.test(signature))
    throw invalidLink("a field is missing or malformed");
  const link = { id, decision: match[2] as LinkDecision, digest, expires: Number(expiresText) };
  const expected = Buffer.from(signed(key, link));
  if (!timingSafeEqual(expected, Buffer.from(signature))) throw invalidLink("the signature does not match");
  if (link.expires * 1000 <= now) {
    throw new SeatError(
      "APPROVAL_LINK_EXPIRED",
      `This approval link expired at ${new Date(link.expires * 1000).toISOString()}, with its approval. Nothing was answered.`,
      { context: { id, expires: link.expires } },
    );
  }
  return { ...link, signature };
}
