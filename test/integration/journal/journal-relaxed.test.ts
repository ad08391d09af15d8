/*
 * Journal.relaxed (issue 14 §8): the visible seat writes its fence and its consumed evidence without their own
 * fsync. What that may cost is only a power loss; a crash of the writing process keeps both. A child process writes
 * through a real sqlite journal and is killed with SIGKILL; the parent reopens it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openJournal } from "../../../src/journal/index.js";

const JOURNAL_JS = pathToFileURL(join(process.cwd(), "dist", "src", "journal", "index.js")).href;

/** Runs `script` (with `journal` open on `path`) in a child, waits for it to print "written", then SIGKILLs it. */
async function writeAndKill(path: string, script: string): Promise<void> {
  const code = `const { openJournal } = await import(${JSON.stringify(JOURNAL_JS)}); const journal = openJournal(${JSON.stringify(path)}); ${script}; console.log("written"); setInterval(() => {}, 1e9);`;
  const proc = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  try {
    await new Promise<void>((resolve, reject) => {
      proc.stdout.on("data", (d: Buffer) => d.toString().includes("written") && resolve());
      proc.once("exit", (c) => reject(new Error(`child exited ${c}: ${stderr}`)));
    });
  } finally {
    proc.kill("SIGKILL");
  }
  await new Promise((resolve) =>
    proc.exitCode !== null || proc.signalCode !== null ? resolve(null) : proc.once("exit", resolve),
  );
}

test("a fence and consumed evidence written relaxed survive a SIGKILL of the writer: the fence is recovered as never sent, the consumed delivery as uncertain", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-relaxed-"));
  try {
    const path = join(dir, "journal.sqlite");
    const sid = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
    await writeAndKill(
      path,
      `
      journal.createSeat({ seatId: "s", sessionId: "${sid}", socketPath: "/x/s.sock" });
      journal.relaxed(() => journal.fence({ seatId: "s", promptId: "r-fenced", text: "never sent" }));
      journal.relaxed(() => journal.fence({ seatId: "s", promptId: "r-consumed", text: "sent" }));
      journal.markDispatched("r-consumed");
      journal.relaxed(() => journal.recordEvidence("r-consumed", { kind: "consumed", source: "_x.ai/queue/changed", sessionId: "${sid}", promptId: "r-consumed" }));
    `,
    );
    const journal = openJournal(path);
    try {
      assert.equal(journal.getDelivery("r-fenced")?.state, "fenced");
      assert.equal(journal.getDelivery("r-consumed")?.state, "consumed");
      const report = journal.recoverAfterCrash();
      assert.deepEqual(
        report.neverSent.map((d) => d.promptId),
        ["r-fenced"],
      );
      assert.deepEqual(
        report.uncertain.map((d) => [d.promptId, d.state]),
        [["r-consumed", "uncertain"]],
      );
    } finally {
      journal.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("relaxed restores synchronous=FULL afterwards, also when its work throws", () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-relaxed-"));
  const journal = openJournal(join(dir, "journal.sqlite"));
  try {
    assert.equal(
      journal.relaxed(() => journal.settings().synchronous),
      1,
      "NORMAL inside",
    );
    assert.equal(journal.settings().synchronous, 2, "FULL after");
    assert.throws(
      () => journal.relaxed(() => journal.fence({ seatId: "no-such-seat", promptId: "p", text: "t" })),
      (e: unknown) => (e as { code?: string }).code === "SEAT_NOT_FOUND",
    );
    assert.equal(journal.settings().synchronous, 2, "FULL after a throw");
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
