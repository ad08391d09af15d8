import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { cacheStatements } from "./statements.js";

test("prepares each SQL text once and hands a cached statement back in its default mode", () => {
  const db = cacheStatements(new Database(":memory:"));
  try {
    db.prepare("CREATE TABLE t (k TEXT, v TEXT)").run();
    db.prepare("INSERT INTO t VALUES (?, ?)").run("a", "1");
    const sql = "SELECT v FROM t WHERE k = ?";
    const first = db.prepare(sql);
    assert.equal(db.prepare(sql), first, "one statement per SQL text");
    assert.equal(db.prepare(sql).pluck().get("a"), "1");
    assert.deepEqual(db.prepare(sql).get("a"), { v: "1" }, "pluck set by one call site does not leak into the next");
    assert.deepEqual(db.prepare(sql).raw().get("a"), ["1"]);
    assert.deepEqual(db.prepare(sql).get("a"), { v: "1" });
  } finally {
    db.close();
  }
});
