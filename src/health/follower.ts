/*
 * Log follower: hands over each complete line appended to a file after the moment it was started, like
 *   `tail -F` from the current end — the file may be absent, created later, rotated or truncated.
 * Owns: the byte offset, the partial last line, detecting replacement (inode) and truncation (size), polling.
 * Does not own: what a line means (log-line.ts) or what to do about it (turn-health.ts).
 * Invariant: never throws and never rejects — an unreadable file, a vanished file or a throwing onLine is
 *   counted in stats and following goes on; lines longer than maxLineBytes are skipped and counted; the
 *   poll timer is unref'd, so a follower never keeps a process alive.
 */
import { statSync } from "node:fs";
import { open, stat } from "node:fs/promises";

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
  /** Times the file was found replaced, truncated or removed and reading restarted at its beginning. */
  resets: number;
  /** Failed reads (permission, I/O); each is retried at the next poll. */
  readErrors: number;
  /** Lines whose onLine threw. */
  callbackErrors: number;
}

/** A running follower. */
export interface LogFollower {
  readonly stats: FollowerStats;
  /** Reads whatever was appended since the last poll (the timer calls this too); a no-op once stopped. */
  poll(): Promise<void>;
  /** Stops following after one last poll; returns the stats. Idempotent. */
  stop(): Promise<FollowerStats>;
}

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/** Starts following `path` from its current end (from its beginning if it appears later). */
export function followLog(options: LogFollowerOptions): LogFollower {
  const maxLineBytes = options.maxLineBytes ?? 256 * 1024;
  const stats: FollowerStats = { lines: 0, oversized: 0, resets: 0, readErrors: 0, callbackErrors: 0 };
  // Taken synchronously, so a line appended right after followLog returns is never missed.
  let inode: number | undefined;
  let offset = 0;
  try {
    const st = statSync(options.path);
    inode = st.ino;
    offset = st.size;
  } catch {
    // Absent (or unreadable) now: whatever appears there later is read from its beginning.
  }
  let pending: Buffer = Buffer.alloc(0);
  let discarding = false;
  let running: Promise<void> | undefined;
  let stopped: Promise<FollowerStats> | undefined;
  let closed = false;

  const restart = () => {
    stats.resets += 1;
    offset = 0;
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

  const readNew = async () => {
    let st;
    try {
      st = await stat(options.path);
    } catch {
      if (inode !== undefined) {
        inode = undefined;
        restart();
      }
      return;
    }
    if (inode === undefined) inode = st.ino;
    else if (st.ino !== inode) {
      inode = st.ino;
      restart();
    }
    if (st.size < offset) restart();
    if (st.size === offset) return;
    let handle;
    try {
      handle = await open(options.path, "r");
      while (offset < st.size) {
        const want = Math.min(CHUNK_BYTES, st.size - offset);
        const chunk = Buffer.alloc(want);
        const { bytesRead } = await handle.read(chunk, 0, want, offset);
        if (bytesRead === 0) break;
        offset += bytesRead;
        take(chunk.subarray(0, bytesRead));
      }
    } catch {
      stats.readErrors += 1;
    } finally {
      await handle?.close().catch(() => undefined);
    }
  };

  const poll = (): Promise<void> => {
    if (closed) return Promise.resolve();
    running ??= readNew().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => void poll(), options.pollMs ?? 250);
  timer.unref();

  return {
    stats,
    poll,
    stop() {
      stopped ??= (async () => {
        clearInterval(timer);
        await running;
        await poll();
        closed = true;
        return { ...stats };
      })();
      return stopped;
    },
  };
}
