import { test } from "node:test";
import assert from "node:assert/strict";
import {
  identityFromMacOutputs,
  lsofHoldsSocketPath,
  parseLsofCwd,
  parseLsofExe,
  parseLsofFields,
  parsePsLine,
} from "./macos.js";

// HAND-WRITTEN SAMPLES of the documented formats (ps(1) with `=` headers suppressed, C-locale lstart;
// lsof(8) -F field output). They were not recorded on a Mac; re-record them there when possible.
const PS_TUI = "  4242  4100   501 Sat Nov 29 22:58:06 2026     ttys003  /opt/homebrew/bin/grok\n";
const PS_LEADER_SINGLE_DIGIT_DAY =
  "  4250     1   501 Mon Dec  1 09:05:02 2026     ??       /opt/homebrew/Cellar/grok/1.0.50/bin/grok agent\n";
const LSOF_CWD = "p4242\nfcwd\nn/Users/dev/project\n";
const LSOF_UNIX = [
  "p4250",
  "f3",
  "n/private/var/folders/xy/abc123/T/.lQ2x/s",
  "f9",
  "n->0x8f1c2d3e4b5a6978",
  "f12",
  "n/private/var/folders/xy/abc123/T/.lQ2x/s",
  "",
].join("\n");

test("parses the ps line into pid, ppid, uid, a seconds-resolution birth, tty and comm", () => {
  assert.deepEqual(parsePsLine(PS_TUI), {
    pid: 4242,
    ppid: 4100,
    ruid: null,
    uid: 501,
    birth: "2026-11-29T22:58:06",
    birthResolution: "seconds",
    tty: "ttys003",
    comm: "/opt/homebrew/bin/grok",
  });
});

test("pads a single-digit lstart day and reads ?? as no terminal, keeping a comm with spaces", () => {
  const ps = parsePsLine(PS_LEADER_SINGLE_DIGIT_DAY);
  assert.equal(ps?.birth, "2026-12-01T09:05:02");
  assert.equal(ps?.tty, null);
  assert.equal(ps?.comm, "/opt/homebrew/Cellar/grok/1.0.50/bin/grok agent");
});

test("returns null for ps output that is empty or not in the requested columns", () => {
  for (const text of ["", "\n", "  PID  PPID\n", "4242 4100 501 yesterday ttys003 grok"])
    assert.equal(parsePsLine(text), null, text);
});

test("reads the cwd from lsof -d cwd field output", () => {
  assert.equal(parseLsofCwd(LSOF_CWD, 4242), "/Users/dev/project");
  assert.equal(parseLsofCwd(LSOF_CWD, 1), null);
  assert.equal(parseLsofCwd("", 4242), null);
});

test("finds the bound socket path among lsof -U files, treating /private/var as /var", () => {
  assert.equal(parseLsofFields(LSOF_UNIX).length, 3);
  assert.equal(lsofHoldsSocketPath(LSOF_UNIX, 4250, "/var/folders/xy/abc123/T/.lQ2x/s"), true);
  assert.equal(lsofHoldsSocketPath(LSOF_UNIX, 4250, "/var/folders/xy/abc123/T/.other/s"), false);
  assert.equal(lsofHoldsSocketPath(LSOF_UNIX, 4242, "/var/folders/xy/abc123/T/.lQ2x/s"), false);
});

test("combines ps and lsof output into one identity only when the pid agrees", () => {
  assert.deepEqual(identityFromMacOutputs(4242, { ps: PS_TUI, lsofCwd: LSOF_CWD })?.cwd, "/Users/dev/project");
  assert.equal(identityFromMacOutputs(4243, { ps: PS_TUI }), null);
  assert.equal(identityFromMacOutputs(4242, { ps: PS_TUI })?.cwd, null);
});

test("reads a real uid before the effective uid when the ruid column is requested", () => {
  const ps = parsePsLine("  4250  4242   501     0 Sat Nov 29 22:58:07 2026     ??       /opt/homebrew/bin/grok\n");
  assert.deepEqual([ps?.pid, ps?.ppid, ps?.ruid, ps?.uid, ps?.birth], [4250, 4242, 501, 0, "2026-11-29T22:58:07"]);
});

test("takes the first txt file of lsof -d txt as the executable", () => {
  const text =
    "p4250\nfcwd\nn/Users/dev/project\nftxt\nn/opt/homebrew/Cellar/grok/1.0.50/bin/grok\nftxt\nn/usr/lib/dyld\n";
  assert.equal(parseLsofExe(text, 4250), "/opt/homebrew/Cellar/grok/1.0.50/bin/grok");
  assert.equal(parseLsofExe(text, 1), null);
  assert.equal(parseLsofExe("p4250\nfcwd\nn/x\n", 4250), null);
});
