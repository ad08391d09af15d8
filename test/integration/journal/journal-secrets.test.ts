/*
 * The journal under redaction (issue 14 §6a): what grok-seat writes to its sqlite file — delivery texts, failure
 * reasons and evidence, named-session prompts and answers — is masked before it is written; the file's bytes
 * (db and wal) are grepped.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJournal } from "../../../src/journal/index.js";
import { SessionStore } from "../../../src/session-store/index.js";
import { scopeFor } from "../../../src/names/index.js";
import { filesHolding } from "../../support/secret-canary.js";
import { registerSecrets } from "../../../src/internal/redact.js";

test("the journal file never holds a known secret value: delivery text, failure reasons and named-session turns are redacted before they are written", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-secrets-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "seats.db");
  const key = "sk-live-0a1b2c3d4e5f6a7b8c9d";
  registerSecrets({ OPENAI_API_KEY: key });
  const journal = openJournal(path);
  journal.createSeat({ seatId: "s1", sessionId: "sid", socketPath: "/x.sock" });
  const fenced = journal.fence({ seatId: "s1", promptId: "p1", text: `deploy with api_key=${key}` });
  assert.equal(fenced.text, "deploy with api_key=[redacted]");
  assert.equal(
    fenced.textLength,
    Buffer.byteLength(`deploy with api_key=${key}`),
    "length (and hash) are of what was sent",
  );
  journal.fence({ seatId: "s1", promptId: "p2", text: "plain" });
  journal.markFailed("p2", `leader refused: Authorization: Bearer ${key}`);
  journal.close();
  const store = new SessionStore(path);
  const row = store.ensure({
    name: "n",
    scope: scopeFor("/tmp/project", false),
    agent: "grok",
    cwd: "/tmp/project",
    model: null,
  });
  store.startTurn(row.row, "t1", `use password=${key}`);
  store.finishTurn("t1", { state: "completed", text: `the key is ${key}` });
  store.close();
  const found = filesHolding([dir], "sk-live-0a1b2c3d");
  assert.ok(found.checked >= 1);
  assert.deepEqual(found.hits, [], "no journal file (db, wal) holds the key");
});
