/*
 * Journal lock holder: a real second process that holds the sqlite write lock of a journal for a while,
 * as another grok-seat (or a user's sqlite3 shell) writing a long transaction would.
 * Run as a script: node journal-lock.js <db path> <hold ms> — prints "locked" once BEGIN IMMEDIATE holds,
 * then rolls back and exits after <hold ms> (or at once on SIGTERM).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";

const SCRIPT = fileURLToPath(import.meta.url);

/** A process holding the journal's write lock; `released` resolves when it has let go and exited. */
export interface HeldWriteLock {
  child: ChildProcess;
  released: Promise<void>;
  /** Ends the hold now. */
  stop(): void;
}

/** Starts a process that takes the write lock of the sqlite file at `path` and holds it for `holdMs`. */
export async function holdWriteLock(path: string, holdMs: number): Promise<HeldWriteLock> {
  const child = spawn(process.execPath, [SCRIPT, path, String(holdMs)], { stdio: ["ignore", "pipe", "inherit"] });
  const released = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("locked")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the lock holder exited (${code}) before it held the lock`)));
  });
  return { child, released, stop: () => void child.kill("SIGTERM") };
}

if (process.argv[1] === SCRIPT) {
  const [path, holdMs] = process.argv.slice(2);
  const db = new Database(path!);
  db.pragma("busy_timeout = 5000");
  db.exec("BEGIN IMMEDIATE");
  process.stdout.write("locked\n");
  const end = () => {
    db.exec("ROLLBACK");
    db.close();
    process.exit(0);
  };
  process.on("SIGTERM", end);
  setTimeout(end, Number(holdMs));
}
