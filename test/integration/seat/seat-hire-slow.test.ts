/*
 * Hire under load (issue 14 §7): the leader's answer to a handshake step may come late as long as grok shows it
 * is working; a silent leader, or one past the cap, fails ACP_HANDSHAKE_FAILED naming the step, the wait and what
 * readiness said. Fake grok TUI (its leader answers `authenticate` on a scripted clock) in real tmux.
 */
import { afterEach, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../../../src/errors.js";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { hireSeat } from "../../../src/seat/index.js";
import { killEverything, options, tmuxWorld, type World } from "./seat-world.js";

let tmuxOk = false;
before(async () => {
  tmuxOk = await isTmuxAvailable();
});

async function hireError(
  w: World,
  config: Record<string, unknown>,
  extra: Record<string, unknown>,
): Promise<{ error: any; ms: number }> {
  const started = Date.now();
  try {
    const seat = await hireSeat(options(w, config, extra));
    await seat.release({ closePane: true });
  } catch (error) {
    assert.ok(isSeatError(error), String(error));
    return { error, ms: Date.now() - started };
  }
  assert.fail("the hire was not refused");
}

describe("hire while the leader is slow to answer (fake TUI in real tmux)", { concurrency: false }, () => {
  let w: World;
  afterEach(async () => {
    if (w) await killEverything(w);
  });

  test("hires when authenticate is answered after 17 s with the default 15 s request time, because grok's log shows the leader working meanwhile", async (t) => {
    const made = tmuxWorld(t, tmuxOk);
    if (!made) return;
    w = made.w;
    // No pongs either: the leader's own log lines alone must carry the wait past 15 s.
    const seat = await hireSeat(
      options(w, { auth: { delayMs: 17_000, logEveryMs: 1_000 }, silentPong: true }, { requestTimeoutMs: 15_000 }),
    );
    assert.equal(seat.parts.journal.getSeat(seat.seatId)?.state, "active");
    await seat.release({ closePane: true });
  });

  test("a leader that never answers authenticate and shows no sign of progress fails after the idle window, naming the step, the wait and readiness", async (t) => {
    const made = tmuxWorld(t, tmuxOk);
    if (!made) return;
    w = made.w;
    const { error, ms } = await hireError(
      w,
      { auth: { never: true }, silentPong: true },
      { requestTimeoutMs: 2_000, handshakeCapMs: 60_000 },
    );
    assert.equal(error.code, "ACP_HANDSHAKE_FAILED");
    assert.equal(error.context.step, "authenticate");
    assert.ok(
      error.context.waitedMs >= 2_000 && ms < 20_000,
      `waited ${error.context.waitedMs} ms, hire took ${ms} ms`,
    );
    assert.equal(error.context.readiness.logLines, 0);
    assert.equal(error.context.readiness.lastPongAgoMs, null);
    assert.match(error.message, /did not answer authenticate after \d+\.\d s: no sign of progress/);
    assert.match(error.message, /answered none of our pings; grok's log has no new line from pid \d+/);
    assert.equal(w.journal.listSeats({ includeReleased: true })[0]?.state, "released");
  });

  test("a leader that keeps working but never answers authenticate stops at the cap, and the message says grok kept showing progress", async (t) => {
    const made = tmuxWorld(t, tmuxOk);
    if (!made) return;
    w = made.w;
    const { error, ms } = await hireError(
      w,
      { auth: { never: true, logEveryMs: 200 } },
      { requestTimeoutMs: 1_500, handshakeCapMs: 4_000 },
    );
    assert.equal(error.code, "ACP_HANDSHAKE_FAILED");
    assert.equal(error.context.step, "authenticate");
    assert.ok(
      error.context.waitedMs >= 4_000 && error.context.waitedMs < 8_000,
      `waited ${error.context.waitedMs} ms (hire ${ms} ms)`,
    );
    assert.ok(error.context.readiness.logLines > 5, JSON.stringify(error.context.readiness));
    assert.ok(error.context.readiness.pongs > 0, JSON.stringify(error.context.readiness));
    assert.match(error.message, /grok kept showing progress, but the hire's limit of 4\.0 s for one step ran out/);
    assert.match(error.message, /the last "session\.setup\.phase"/);
  });
});
