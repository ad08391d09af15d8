import { test } from "node:test";
import assert from "node:assert/strict";
import { parseBootTime, parseNetUnix, parseProcStat, parseStatusUids, socketInodeOfLink } from "./proc-text.js";

// Hand-written in the proc(5) layout; fields 23+ abbreviated to plausible numbers.
const tail =
  "-1 4194560 1234 0 0 0 5 3 0 0 20 0 4 0 987654 123456789 1000 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 2 0 0 0 0 0";
const stat = (comm: string) => `4242 (${comm}) S 4100 4242 4100 34819 ${tail}`;

test("reads ppid, pgid, sid, tty_nr and the start-time field 22 from /proc/<pid>/stat", () => {
  assert.deepEqual(parseProcStat(stat("grok")), {
    pid: 4242,
    comm: "grok",
    state: "S",
    ppid: 4100,
    pgid: 4242,
    sid: 4100,
    ttyNr: 34819,
    startTicks: "987654",
  });
});

test("splits after the last parenthesis so a comm with spaces and parentheses cannot shift fields", () => {
  for (const comm of ["x) y (z", "a b", ") S 1 2 3 4", "((()))"]) {
    const parsed = parseProcStat(stat(comm));
    assert.equal(parsed?.comm, comm);
    assert.equal(parsed?.startTicks, "987654");
    assert.equal(parsed?.ppid, 4100);
  }
});

test("returns null for text that is not a stat line", () => {
  for (const text of ["", "4242 grok S 1", "4242 (grok) S 1 2 3", `abc (x) S 1 2 3 4 ${tail}`])
    assert.equal(parseProcStat(text), null, text);
});

test("reads real and effective uid from the Uid line of status", () => {
  assert.deepEqual(parseStatusUids("Name:\tgrok\nUid:\t1000\t1001\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n"), {
    real: 1000,
    effective: 1001,
  });
  assert.equal(parseStatusUids("Name:\tgrok\n"), null);
});

test("reads btime from /proc/stat", () => {
  assert.equal(parseBootTime("cpu  1 2 3\nintr 5\nbtime 1795995410\nprocesses 9\n"), 1795995410);
  assert.equal(parseBootTime("cpu 1\n"), null);
});

test("parses /proc/net/unix rows, marking listening sockets and keeping paths with spaces", () => {
  const text = [
    "Num       RefCount Protocol Flags    Type St Inode Path",
    "0000000044eaf2bb: 00000002 00000000 00010000 0001 01 51234 /run/user/1000/.lab c/s",
    "00000000e6f0808e: 00000003 00000000 00000000 0001 03 51240 /run/user/1000/.lab c/s",
    "00000000e6f0808f: 00000003 00000000 00000000 0001 03 1602",
    "000000001111aaaa: 00000002 00000000 00010000 0001 01 777 @abstract",
    "garbage line",
  ].join("\n");
  assert.deepEqual(parseNetUnix(text), [
    { flags: 0x10000, type: 1, state: 1, inode: 51234, path: "/run/user/1000/.lab c/s", listening: true },
    { flags: 0, type: 1, state: 3, inode: 51240, path: "/run/user/1000/.lab c/s", listening: false },
    { flags: 0, type: 1, state: 3, inode: 1602, path: null, listening: false },
    { flags: 0x10000, type: 1, state: 1, inode: 777, path: "@abstract", listening: true },
  ]);
});

test("reads the inode from a socket fd link and nothing else", () => {
  assert.equal(socketInodeOfLink("socket:[51234]"), 51234);
  assert.equal(socketInodeOfLink("pipe:[51234]"), null);
  assert.equal(socketInodeOfLink("/dev/pts/3"), null);
});
