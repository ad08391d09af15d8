import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { isSqliteBusy, withBusyRetry } from "./busy.js";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

test("sqlite's busy and locked codes are busy; a constraint or an I/O error is not, whatever the text says", () => {
  for (const code of ["SQLITE_BUSY", "SQLITE_BUSY_SNAPSHOT", "SQLITE_LOCKED"])
    assert.equal(isSqliteBusy({ code }), true, code);
  for (const value of [
    { code: "SQLITE_CONSTRAINT_PRIMARYKEY" },
    { code: "SQLITE_IOERR" },
    new Error("database is locked"),
    null,
    "SQLITE_BUSY",
  ])
    assert.equal(isSqliteBusy(value), false);
});

test("a busy operation is retried until it succeeds within the wait", () => {
  let attempts = 0;
  const value = withBusyRetry(
    "/j.db",
    "testing",
    () => {
      attempts += 1;
      if (attempts < 3) throw busy();
      return "done";
    },
    2_000,
  );
  assert.equal(value, "done");
  assert.equal(attempts, 3);
});

test("a journal busy past the wait is JOURNAL_BUSY (retryable, naming the file), never corrupt; other errors pass through", () => {
  assert.throws(
    () =>
      withBusyRetry(
        "/j.db",
        "testing",
        () => {
          throw busy();
        },
        120,
      ),
    (e: unknown) => isSeatError(e, "JOURNAL_BUSY") && e.retryable && /\/j\.db/.test(e.message),
  );
  const constraint = Object.assign(new Error("UNIQUE constraint failed"), { code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
  assert.throws(
    () =>
      withBusyRetry("/j.db", "testing", () => {
        throw constraint;
      }),
    (e: unknown) => e === constraint,
  );
});
