import { test } from "node:test";
import assert from "node:assert/strict";
import { findActiveSession, parseActiveSessions } from "./active-sessions.js";
import { isSeatError } from "../errors.js";

// Shape from grok-wire.md §14 (pretty-printed array written by the TUI).
const SAMPLE = `[
  {
    "session_id": "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
    "pid": 15024,
    "cwd": "/home/me/project",
    "opened_at": "2026-11-29T22:58:06.714286180Z"
  }
]`;
const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

test("parses the documented array into camelCase entries", () => {
  assert.deepEqual(parseActiveSessions(SAMPLE), [
    { sessionId: SID, pid: 15024, cwd: "/home/me/project", openedAt: "2026-11-29T22:58:06.714286180Z" },
  ]);
  assert.deepEqual(parseActiveSessions("[]"), []);
});

test("turns garbage into a clear IDENTITY_UNKNOWN error instead of crashing", () => {
  for (const text of [
    "",
    "{",
    "{}",
    "null",
    '[{"session_id":1}]',
    '[{"session_id":"s","pid":-1,"cwd":"/","opened_at":"t"}]',
    "[null]",
  ]) {
    assert.throws(
      () => parseActiveSessions(text, "/g/active_sessions.json"),
      (err: unknown) => {
        assert.ok(isSeatError(err, "IDENTITY_UNKNOWN"), text);
        assert.match(err.message, /active_sessions\.json/);
        return true;
      },
    );
  }
});

test("matches only when the session is listed with the same pid and cwd", () => {
  const list = parseActiveSessions(SAMPLE);
  const found = findActiveSession(list, { sessionId: SID, pid: 15024, cwd: "/home/me/project" });
  assert.equal(found.verdict, "match");
  assert.equal(found.entry?.pid, 15024);
});

test("reports a mismatch when the session is listed with another pid or cwd", () => {
  const list = parseActiveSessions(SAMPLE);
  assert.equal(findActiveSession(list, { sessionId: SID, pid: 999, cwd: "/home/me/project" }).verdict, "mismatch");
  const cwd = findActiveSession(list, { sessionId: SID, pid: 15024, cwd: "/elsewhere" });
  assert.equal(cwd.verdict, "mismatch");
  assert.match(cwd.reason, /cwd \/home\/me\/project/);
});

test("reports a mismatch when our TUI pid is listed with a different session", () => {
  const list = parseActiveSessions(SAMPLE);
  assert.equal(
    findActiveSession(list, { sessionId: "0199ffff-0000-7000-8000-000000000000", pid: 15024, cwd: "/home/me/project" })
      .verdict,
    "mismatch",
  );
});

test("is unknown, never a match, when neither the session nor the pid is listed", () => {
  const result = findActiveSession([], { sessionId: SID, pid: 15024, cwd: "/home/me/project" });
  assert.equal(result.verdict, "unknown");
  assert.equal(result.entry, null);
});
