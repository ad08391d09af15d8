/*
 * Log follower: hands over each complete line appended to a file after the moment it was started, like
 *   `tail -F` from the current end — the file may be absent, created later, trimmed in place, truncated,
 *   rotated (renamed away and replaced) or removed.
 * Owns: the open file, the byte offset, the partial last line, the anchor (the last bytes read, used to find
 *   our place again after the file was rewritten in place), detecting replacement (inode) and rewrites, polling.
 * Does not own: what a line means (log-line.ts) or whether a line belongs to a turn (turn-health.ts).
 * Invariant: never throws and never rejects — an unreadable file, a vanished file or a throwing onLine is
 *   counted in stats and following goes on; lines longer than maxLineBytes are skipped and counted; the
 *   poll timer is unref'd, so a follower never keeps a process alive.
 *   No byte is delivered twice while the anchor survives: a file rewritten in place (grok 1.0.41 trims its
 *   log to its newest half) is searched for the anchor and read on from just after it; only when the anchor
 *   is gone (a real truncation) is the file read again from its beginning. A renamed-away file is read to
 *   its end through the still-open descriptor before the new file is started, so its last lines are not lost.
 *   Spec: docs/health.md#rotation
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { open, stat, type FileHandle } from "node:fs/promises";

/** Options of followLog. */
export interface LogFollowerOptions {
  /** The file to follow; it need not exist yet. */
  path: string;
  /** Called once per complete line (without its newline), in file order. */
  onLine(line: string): void;
  /** How often to look for new bytes. Default 250 ms. */
  pollMs?: number;
  /** Longer lines are skipped (counted in `oversized`). Default 256 KiB. */
  maxLineBytes?: number;
}

/** What a follower saw. */
export interface FollowerStats {
  lines: number;
  oversized: number;
  /** Times reading restarted at the beginning of a file: replaced (rotated), truncated past our place, removed. */
  resets: number;
  /** Times the file was rewritten in place (trimmed) and our place was found again after the anchor. */
  resyncs: number;
  /** Failed reads (permission, I/O); each is retried at the next poll. */
  readErrors: number;
  /** Lines whose onLine threw. */
  callbackErrors: number;
}

/** A running follower. */
export interface LogFollower {
  readonly stats: FollowerStats;
  /** Reads whatever was appended before this call and not yet read (the timer calls this too); a no-op once stopped. */
  poll(): Promise<void>;
  /** Stops following after one last poll; returns the stats. Idempotent. */
  stop(): Promise<FollowerStats>;
}

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
/** How many of the last bytes read identify our place: several of grok's lines, each with its own timestamp. */
const ANCHOR_BYTES = 2048;

/** The last `length` bytes before `end` of the file at `path` (empty when unreadable). */
function tailSync(path: string, end: number, length: number): Buffer {
  const want = Math.min(end, length);
  if (want <= 0) return Buffer.alloc(0);
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.alloc(want);
    const got = readSync(fd, buf, 0, want, end - want);
    return buf.subarray(0, got === want ? want : 0);
  } catch {
    return Buffer.alloc(0);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The complete lines among the last `maxBytes` of the file at `path` (the first, likely torn, is dropped), read
 * synchronously; empty when the file is absent or unreadable. Never throws.
 */
export function readLogTail(path: string, maxBytes: number): string[] {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return [];
  }
  const text = tailSync(path, size, maxBytes).toString("utf8");
  const lines = text.split("\n");
  lines.pop(); // after the last newline: an unfinished line, or nothing
  if (size > maxBytes) lines.shift();
  return lines;
}

/** The offset just after the last occurrence of `anchor` in the first `size` bytes of `handle`, or undefined. */
async function findAfterAnchor(handle: FileHandle, size: number, anchor: Buffer): Promise<number | undefined> {
  // Searched from the end backwards: after a trim our place is near the new end.
  let end = size;
  while (end >= anchor.length) {
    const start = Math.max(0, end - CHUNK_BYTES);
    const buf = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buf, 0, buf.length, start);
    const at = buf.subarray(0, bytesRead).lastIndexOf(anchor);
    if (at !== -1) return start + at + anchor.length;
    if (start === 0) return undefined;
    end = start + anchor.length - 1; // overlap, so an anchor across two chunks is found
  }
  return undefined;
}

/** Starts following `path` from its current end (from its beginning if it appears later). */
export function followLog(options: LogFollowerOptions): LogFollower {
  const maxLineBytes = options.maxLineBytes ?? 256 * 1024;
  const stats: FollowerStats = { lines: 0, oversized: 0, resets: 0, resyncs: 0, readErrors: 0, callbackErrors: 0 };
  // Taken synchronously, so a line appended right after followLog returns is never missed.
  let inode: number | undefined;
  let offset = 0;
  let anchor: Buffer = Buffer.alloc(0);
  try {
    const st = statSync(options.path);
    inode = st.ino;
    offset = st.size;
    anchor = tailSync(options.path, offset, ANCHOR_BYTES);
  } catch {
    // Absent (or unreadable) now: whatever appears there later is read from its beginning.
  }
  let handle: FileHandle | undefined;
  let pending: Buffer = Buffer.alloc(0);
  let discarding = false;
  let running: Promise<void> | undefined;
  let stopped: Promise<FollowerStats> | undefined;
  let closed = false;

  const restart = () => {
    stats.resets += 1;
    offset = 0;
    anchor = Buffer.alloc(0);
    pending = Buffer.alloc(0);
    discarding = false;
  };

  const deliver = (bytes: Buffer) => {
    if (bytes.length > maxLineBytes) {
      stats.oversized += 1;
      return;
    }
    stats.lines += 1;
    try {
      options.onLine(bytes.toString("utf8"));
    } catch {
      stats.callbackErrors += 1;
    }
  };

  const take = (chunk: Buffer) => {
    anchor = Buffer.from(
      chunk.length >= ANCHOR_BYTES
        ? chunk.subarray(chunk.length - ANCHOR_BYTES)
        : Buffer.concat([anchor, chunk]).subarray(-ANCHOR_BYTES),
    );
    let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    for (let nl = data.indexOf(NEWLINE); nl !== -1; nl = data.indexOf(NEWLINE)) {
      if (discarding) discarding = false;
      else deliver(data.subarray(0, nl));
      data = data.subarray(nl + 1);
    }
    if (data.length > maxLineBytes) {
      // A line this long is skipped whole: drop what we have and everything up to its newline.
      if (!discarding) stats.oversized += 1;
      discarding = true;
      data = Buffer.alloc(0);
    }
    pending = Buffer.from(data);
  };

  /** Reads `from` offset to `size` of the open file. */
  const readTo = async (from: FileHandle, size: number) => {
    while (offset < size) {
      const want = Math.min(CHUNK_BYTES, size - offset);
      const chunk = Buffer.alloc(want);
      const { bytesRead } = await from.read(chunk, 0, want, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
      take(chunk.subarray(0, bytesRead));
    }
  };

  /** True when the bytes just before our offset are still the anchor (the file was only appended to). */
  const anchorHolds = async (from: FileHandle, size: number): Promise<boolean> => {
    if (anchor.length === 0) return size >= offset;
    if (size < offset) return false;
    const buf = Buffer.alloc(anchor.length);
    const { bytesRead } = await from.read(buf, 0, anchor.length, offset - anchor.length);
    return bytesRead === anchor.length && buf.equals(anchor);
  };

  const closeHandle = async () => {
    const h = handle;
    handle = undefined;
    await h?.close().catch(() => undefined);
  };

  const readNew = async () => {
    try {
      let st;
      try {
        st = await stat(options.path);
      } catch {
        st = undefined;
      }
      if (inode !== undefined && st?.ino !== inode) {
        // Rotated away or removed: what was appended to the old file before it went is still ours.
        if (handle) await readTo(handle, (await handle.stat()).size);
        await closeHandle();
        inode = undefined;
        restart();
      }
      if (!st) return;
      if (inode === undefined) inode = st.ino;
      handle ??= await open(options.path, "r");
      if ((await handle.stat()).ino !== inode) {
        // Replaced between our stat and open: read it next time as a new file.
        await closeHandle();
        return;
      }
      const size = (await handle.stat()).size;
      if (!(await anchorHolds(handle, size))) {
        // Rewritten in place: trimmed (our place is still in it) or truncated and regrown (it is not).
        const after = anchor.length > 0 ? await findAfterAnchor(handle, size, anchor) : undefined;
        if (after !== undefined) {
          stats.resyncs += 1;
          offset = after;
        } else restart();
      }
      await readTo(handle, size);
    } catch {
      stats.readErrors += 1;
      await closeHandle();
    }
  };

  let queued: Promise<void> | undefined;
  // A poll asked for while one runs is queued behind it (once), so a caller always gets a read that began
  // after its call and sees every byte appended before it.
  const poll = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (!running) {
      running = readNew().finally(() => {
        running = undefined;
      });
      return running;
    }
    queued ??= running.then(() => {
      queued = undefined;
      return poll();
    });
    return queued;
  };

  const timer = setInterval(() => void poll(), options.pollMs ?? 250);
  timer.unref();
  // Open the file now rather than at the first tick: a rotation in the meantime then loses nothing either.
  void poll();

  return {
    stats,
    poll,
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await poll();
        closed = true;
        await closeHandle();
        return { ...stats };
      })();
      return stopped;
    },
  };
}
