// Crash tests: a child process writes to a real sqlite journal and is killed with SIGKILL; the parent reopens it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { openJournal } from "../../../src/journal/index.js";

const child = join(dirname(fileURLToPath(import.meta.url)), "journal-crash-child.js");

async function runAndKill(path: string, step: "fence" | "dispatch"): Promise<NodeJS.Signals | null> {
  const proc = spawn(process.execPath, [child, path, step], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  try {
    await new Promise<void>((resolve, reject) => {
      proc.stdout.on("data", (d: Buffer) => d.toString().includes(`${step}ed`) && resolve());
      proc.once("exit", (code) => reject(new Error(`child exited ${code} before ${step}: ${stderr}`)));
    });
  } finally {
    proc.kill("SIGKILL");
  }
  return new Promise((resolve) =>
    proc.exitCode !== null || proc.signalCode !== null
      ? resolve(proc.signalCode)
      : proc.once("exit", (_c, s) => resolve(s)),
  );
}

test("keeps a fenced row written by a process killed with SIGKILL, and reports it as never sent", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-crash-"));
  try {
    const path = join(dir, "journal.sqlite");
    assert.equal(await runAndKill(path, "fence"), "SIGKILL");
    const journal = openJournal(path);
    try {
      const row = journal.getDelivery("crash-1");
      assert.equal(row?.state, "fenced");
      assert.equal(row?.text, "brief written before the crash");
      const report = journal.recoverAfterCrash();
      assert.deepEqual(
        report.neverSent.map((d) => [d.promptId, d.state]),
        [["crash-1", "failed"]],
      );
      assert.deepEqual(report.uncertain, []);
      assert.deepEqual(journal.openDeliveries(), []);
    } finally {
      journal.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("reports an uncertain delivery after a controller crash and never re-sends it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-crash-"));
  try {
    const path = join(dir, "journal.sqlite");
    assert.equal(await runAndKill(path, "dispatch"), "SIGKILL");
    const journal = openJournal(path);
    try {
      assert.equal(journal.getDelivery("crash-1")?.state, "dispatched");
      const report = journal.recoverAfterCrash();
      assert.deepEqual(
        report.uncertain.map((d) => [d.promptId, d.state]),
        [["crash-1", "uncertain"]],
      );
      assert.deepEqual(
        journal.openDeliveries().map((d) => d.state),
        ["uncertain"],
      );
      const late = journal.recordEvidence("crash-1", {
        kind: "completed",
        source: "session/prompt result",
        sessionId: "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
        promptId: "crash-1",
      });
      assert.equal(late?.state, "completed");
    } finally {
      journal.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
