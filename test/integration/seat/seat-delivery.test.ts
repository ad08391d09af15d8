/*
 * Visible seat delivery states decided by state and code (never by error text), against the fake grok TUI
 * in real tmux: a leader that dies mid-turn leaves the delivery uncertain (it may have run), not failed.
 */
import { afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { hireSeat } from "../../../src/seat/index.js";
import { killEverything, options, tmuxWorld, type World } from "./seat-world.js";

let tmuxOk = false;
before(async () => {
  tmuxOk = await isTmuxAvailable();
});

describe("visible seat delivery after a lost connection (fake TUI in real tmux)", { concurrency: false }, () => {
  let w: World;
  afterEach(async () => {
    if (w) await killEverything(w);
  });

  test("a leader killed after the brief was consumed leaves the delivery uncertain with the reason, and the next send refuses with LEADER_SOCKET_GONE", async (t) => {
    const made = tmuxWorld(t, tmuxOk);
    if (!made) return;
    w = made.w;
    const seat = await hireSeat(options(w, { turn: { queueDelayMs: 0, resultDelayMs: 30_000 } }));
    const d = await seat.deliver("a long brief", { promptId: "it-lost-1" });
    assert.equal((await seat.waitFor(d.promptId, ["consumed"], 5000))?.state, "consumed");
    process.kill(seat.parts.leader.pid, "SIGKILL");
    const settled = await seat.waitFor(d.promptId, ["uncertain"], 5000);
    assert.equal(settled?.state, "uncertain");
    assert.ok(
      settled!.evidence.some((e) => e.kind === "note" && /^no final result: /.test(String(e.detail))),
      JSON.stringify(settled!.evidence),
    );
    await assert.rejects(
      seat.deliver("another brief"),
      (e: unknown) => (e as { code?: string }).code === "LEADER_SOCKET_GONE",
    );
    assert.equal(w.journal.getDelivery("it-lost-1")?.state, "uncertain");
  });
});
