/*
 * Approval links: the Approve and Deny links an approval's notification carries, answered by `seat board`
 *   without its token or cookie.
 * Owns: the seat home's board directory (`<home>/board/`, 0700): the signing key (`link.key`, 0600, made once,
 *   never the board token), the address record a running board leaves (`address.json`), the used-link records;
 *   signing a link (HMAC-SHA256 over approval id, decision, digest and expiry), checking one, and claiming one
 *   (a create-if-absent of its used-link record: the compare-and-set that makes a link single-use).
 * Does not own: serving the links (board/server.ts), their pages (board/link-page.ts), answering (the approvals source).
 * Invariant: a link names nothing but the approval id, the decision, the digest, the expiry and its signature; a
 *   link whose signature fails is refused before anything else is read from it; a used-link record is never
 *   removed before its link expired, so a link answers at most once.
 * Spec: docs/board.md#answering-from-a-notification.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { SeatError } from "../errors.js";
import { ensurePrivateDir } from "../home/index.js";
import { type ApprovalLink, type LinkDecision, linkPath, signLink } from "./link-sign.js";
import { processAlive } from "../internal/process-alive.js";

const ADDRESS_SCHEMA = "grok-seat.board-address.v1";
const KEY_BYTES = 32;

/** The board's directory inside a seat home. */
export function boardDir(home: string): string {
  return join(home, "board");
}

function keyPath(home: string): string {
  return join(boardDir(home), "link.key");
}

function unsafeKey(path: string, problem: string): SeatError {
  return new SeatError(
    "BOARD_LINK_KEY_UNSAFE",
    `The approval-link key ${path} ${problem}. Remove it (a new one is made on the next \`seat board\`; links already sent stop working).`,
    { context: { path } },
  );
}

/** Reads the key at `path` through a descriptor that does not follow a symlink, after checking it is ours and 0600. */
function readKey(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw unsafeKey(path, code === "ELOOP" ? "is a symlink" : `cannot be read (${code ?? "error"})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw unsafeKey(path, "is not a regular file");
    if (stat.uid !== (process.getuid?.() ?? stat.uid)) throw unsafeKey(path, `is owned by uid ${stat.uid}`);
    if ((stat.mode & 0o077) !== 0) throw unsafeKey(path, `has mode ${(stat.mode & 0o777).toString(8)}, not 600`);
    const key = Buffer.from(readFileSync(fd, "utf8").trim(), "base64url");
    if (key.length !== KEY_BYTES) throw unsafeKey(path, "does not hold a key");
    return key;
  } finally {
    closeSync(fd);
  }
}

/**
 * The seat home's link-signing key, made once (0600) when absent. Two boards starting at once agree: the key is
 * written to a private temporary file and linked into place only if no key is there yet.
 */
export function ensureLinkKey(home: string): Buffer {
  ensurePrivateDir(boardDir(home));
  const path = keyPath(home);
  const existing = readKey(path);
  if (existing) return existing;
  const temp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(temp, `${randomBytes(KEY_BYTES).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST")
      throw unsafeKey(path, `cannot be made (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  } finally {
    unlinkSync(temp);
  }
  const key = readKey(path);
  if (!key) throw unsafeKey(path, "vanished while it was made");
  return key;
}

/** The key, when a board has made one (a run never makes it: no board, no links). */
export function findLinkKey(home: string): Buffer | undefined {
  return readKey(keyPath(home));
}

function usedDir(home: string): string {
  return join(boardDir(home), "used-links");
}

function usedName(link: ApprovalLink): string {
  return `${link.expires}-${createHash("sha256").update(link.signature).digest("hex").slice(0, 40)}`;
}

/**
 * Claims `link` for its one use: creates its used-link record, or throws APPROVAL_LINK_USED when it exists. The
 * create is exclusive (O_EXCL), so of two answers racing with the same link exactly one claims it.
 */
export function claimLink(home: string, link: ApprovalLink): void {
  ensurePrivateDir(usedDir(home));
  try {
    closeSync(
      openSync(join(usedDir(home), usedName(link)), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600),
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST")
      throw new SeatError(
        "APPROVAL_LINK_USED",
        `This approval link was already used. Nothing was answered again; a link answers once.`,
        { context: { id: link.id } },
      );
    throw error;
  }
}

/** Removes used-link records whose links have expired (they refuse themselves by then). */
export function pruneUsedLinks(home: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(usedDir(home));
  } catch {
    return;
  }
  for (const name of names) {
    const expires = Number(name.split("-")[0]);
    // An hour past its expiry, so a clock step back does not revive a link.
    if (Number.isFinite(expires) && expires * 1000 + 3_600_000 < now)
      rmSync(join(usedDir(home), name), { force: true });
  }
}

/** What a running board leaves in its seat home so runs can build links to it. */
export interface BoardAddress {
  schema: typeof ADDRESS_SCHEMA;
  /** The URL links start from: the board's own root (`http://127.0.0.1:PORT`) or its public URL; never its token or secret path. */
  links_url: string;
  pid: number;
  started_at: string;
}

function addressPath(home: string): string {
  return join(boardDir(home), "address.json");
}

/** Records the board's links address (atomically, 0600). */
export function writeBoardAddress(home: string, linksUrl: string): void {
  ensurePrivateDir(boardDir(home));
  const record: BoardAddress = {
    schema: ADDRESS_SCHEMA,
    links_url: linksUrl,
    pid: process.pid,
    started_at: new Date().toISOString(),
  };
  const temp = `${addressPath(home)}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(temp, addressPath(home));
}

/** Removes the address record if it is still this board's own (a newer board's stays, in this process or another). */
export function clearBoardAddress(home: string, linksUrl: string): void {
  const found = readBoardAddress(home);
  if (found?.pid === process.pid && found.links_url === linksUrl) rmSync(addressPath(home), { force: true });
}

/** The address record, when there is a well-formed one. */
export function readBoardAddress(home: string): BoardAddress | undefined {
  try {
    const record = JSON.parse(readFileSync(addressPath(home), "utf8")) as BoardAddress;
    if (record.schema !== ADDRESS_SCHEMA || typeof record.links_url !== "string" || !Number.isInteger(record.pid))
      return undefined;
    return record;
  } catch {
    return undefined;
  }
}

/**
 * The Approve and Deny URLs of one approval, or undefined when no board serves this seat home (no address record,
 * its process gone, or no key). Never throws: a notification without links still goes out.
 */
export function approvalLinks(
  home: string,
  approval: { id: string; digest: string; deadline: string },
): { approve_url: string; deny_url: string } | undefined {
  try {
    const address = readBoardAddress(home);
    if (!address || !processAlive(address.pid)) return undefined;
    const key = findLinkKey(home);
    const deadline = new Date(approval.deadline);
    if (!key || Number.isNaN(deadline.getTime())) return undefined;
    const root = address.links_url.replace(/\/+$/, "");
    const url = (decision: LinkDecision) =>
      `${root}${linkPath(key, signLink(key, { id: approval.id, decision, digest: approval.digest, deadline }))}`;
    return { approve_url: url("allow"), deny_url: url("deny") };
  } catch {
    return undefined;
  }
}

/** True when `link`'s used-link record exists (a look only: claimLink is the one that decides). */
export function isLinkUsed(home: string, link: ApprovalLink): boolean {
  try {
    readFileSync(join(usedDir(home), usedName(link)));
    return true;
  } catch {
    return false;
  }
}
