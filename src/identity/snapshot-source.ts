/*
 * Snapshot identity source: for one listing of many sockets (`seat ps`, the board, `seat approvals`), reads
 *   /proc/net/unix once and each holder pid's fd table once, instead of once per socket. A process that holds
 *   many control sockets (a `seat mcp` server with several runs, a fleet worker) is then scanned once, not once
 *   per socket it holds.
 * Owns: snapshotIdentitySource (the memo) — the verdicts are linuxSocketHolderCheck's (source.ts), unchanged.
 * Does not own: what a listing does with a verdict (attention/, approvals/).
 * Invariant: for reading and listing only. A snapshot lives for one call: what it did not see (a socket bound
 *   after it was read) is a mismatch there, left out of that listing, never a match it did not observe.
 */
import { readFile } from "node:fs/promises";
import { fdSocketTable, listenerInodesAt, tableHoldsSocket, type FdSocketTable } from "./linux.js";
import { parseNetUnix, type UnixSocketRow } from "./proc-text.js";
import { linuxSocketHolderCheck, platformIdentitySource, type IdentitySource } from "./source.js";

/** An identity source whose socket-holder checks share one read of /proc/net/unix and of each pid's fd table. */
export function snapshotIdentitySource(platform: NodeJS.Platform = process.platform): IdentitySource {
  const base = platformIdentitySource(platform);
  if (base.platform !== "linux") return base;
  let unix: Promise<UnixSocketRow[]> | undefined;
  const tables = new Map<number, Promise<FdSocketTable | "gone" | "unknown">>();
  const listenerInodes = async (socketPath: string): Promise<number[]> => {
    unix ??= readFile("/proc/net/unix", "utf8").then(parseNetUnix);
    return listenerInodesAt(await unix, socketPath);
  };
  const holds = async (pid: number, inode: number) => {
    let table = tables.get(pid);
    if (table === undefined) {
      table = fdSocketTable(pid);
      tables.set(pid, table);
    }
    return tableHoldsSocket(await table, inode);
  };
  return {
    platform: "linux",
    readIdentity: base.readIdentity,
    checkSocketHolder: linuxSocketHolderCheck(listenerInodes, holds),
  };
}
