/*
 * No process outlives its owner (issue 23 §6): `seat run`, `seat run -s NAME`, `seat mcp` (a `run` tool call) and a
 *   fleet worker are each SIGKILLed while the real grok runs a shell tool call (`sleep 300`, which grok starts in
 *   its own session, so the agent's process group does not hold it); 5 s later no process of the tree, nor the
 *   reaper, is alive (process-table scan by the sandbox HOME every process inherits). The full campaign (100 kills
 *   per owner) is R1 in `npm run torture` (bench/r1-owner-kill.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { OWNER_KINDS, runOwnerKills } from "../../../bench/r1-owner-kill.js";
import { liveBinary } from "../../support/live-rig.js";
import { needGrok } from "../../support/requirements.js";

for (const kind of OWNER_KINDS) {
  test(`SIGKILL of ${kind === "run-s" ? "seat run -s NAME" : kind === "worker" ? "a fleet worker" : `seat ${kind}`} during a shell tool call leaves no process of grok's tree alive after 5 s`, async (t) => {
    const binary = await liveBinary();
    if (!needGrok(t, binary instanceof Error ? `real grok unavailable: ${binary.message}` : false)) return;
    const r = await runOwnerKills({ cycles: 1, kinds: [kind] });
    assert.equal(r.skipped, undefined);
    const figures = r.byKind[kind];
    assert.deepEqual(figures.problems, []);
    assert.equal(figures.kills, 1, "the owner was killed during the tool call");
    assert.deepEqual(figures.survivors, []);
    assert.equal(figures.goneMs.length, 1);
  });
}
