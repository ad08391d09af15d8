import { test } from "node:test";
import assert from "node:assert/strict";
import { boardLinksRecord, fleetLinkKey, verifyBoardLinksRecord } from "./approval-links.js";

const KEY = fleetLinkKey("a-fleet-key-of-at-least-32-characters-0123");

test("a board's links record verifies with the fleet's link key until it expires; another key, an edit, a replay past its time or a foreign scheme is refused", () => {
  const now = Date.parse("2026-12-03T08:00:00Z");
  const record = boardLinksRecord(KEY, "https://board.example", now + 60_000);
  assert.equal(verifyBoardLinksRecord(KEY, record, now), "https://board.example");
  assert.equal(verifyBoardLinksRecord(KEY, record, now + 60_000), undefined, "expired (a replayed old record)");
  assert.equal(verifyBoardLinksRecord(fleetLinkKey("another-fleet-key-of-32-characters-xyz0"), record, now), undefined);
  const edited = record.replace("board.example", "evil.example");
  assert.equal(verifyBoardLinksRecord(KEY, edited, now), undefined, "the URL changed without the key");
  const later = JSON.parse(record) as { expires: number };
  const extended = record.replace(String(later.expires), String(later.expires + 3_600_000));
  assert.equal(verifyBoardLinksRecord(KEY, extended, now + 120_000), undefined, "the expiry stretched without the key");
  const ftp = boardLinksRecord(KEY, "ftp://board.example", now + 60_000);
  assert.equal(verifyBoardLinksRecord(KEY, ftp, now), undefined);
  assert.equal(verifyBoardLinksRecord(KEY, "not json", now), undefined);
});

test("the fleet's link key is derived from the fleet key, never the fleet key itself", () => {
  const fleet = "a-fleet-key-of-at-least-32-characters-0123";
  assert.equal(KEY.length, 32);
  assert.ok(!KEY.toString("utf8").includes(fleet));
  assert.deepEqual(fleetLinkKey(fleet), KEY, "the same on every worker and board");
});
