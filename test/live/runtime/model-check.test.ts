/*
 * An unknown model is refused right after session/new (issue 15 §7), on the real grok 1.0.41: MODEL_UNKNOWN
 * listing the ids grok offers, no model request sent, and `seat run` exits 2 instead of waiting out the idle timeout.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSession } from "../../../src/index.js";
import { runSeat } from "../../support/cli.js";
import { startLiveRig } from "../../support/live-rig.js";
import { gotLive } from "../../support/requirements.js";

test("createSession refuses a model grok does not offer with MODEL_UNKNOWN listing its models, and sends nothing", async (t) => {
  const rig = await startLiveRig();
  if (!gotLive(t, rig)) return;
  try {
    const session = await createSession({ ...rig.sessionOptions, model: "nope/!!" });
    assert.equal(session.state, "dead");
    const diagnostic = session.diagnostics.find((d) => d.code === "MODEL_UNKNOWN");
    assert.ok(diagnostic, `a MODEL_UNKNOWN diagnostic: ${JSON.stringify(session.diagnostics)}`);
    assert.match(diagnostic.message, /"nope\/!!".*available: .*\bmock\b/);
    const result = await session.prompt("say pong");
    assert.equal(result.diagnostic?.code, "ACP_SESSION_DEAD");
    assert.deepEqual(
      rig.mock.requests.filter((r) => r.kind === "main"),
      [],
      "no model request was made",
    );
    assert.deepEqual((await session.dispose()).survivors, []);
  } finally {
    await rig.close();
  }
});

test("seat run --model with an unknown id exits 2 with MODEL_UNKNOWN, and a listed id still runs", async (t) => {
  const rig = await startLiveRig({ rules: [{ match: "say pong", replies: [{ text: "pong" }] }] });
  if (!gotLive(t, rig)) return;
  try {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: rig.sandbox.home,
      GROK_HOME: rig.sandbox.grokHome,
      GROK_BIN: rig.binary,
    };
    const bad = await runSeat(["run", "--json", "--model", "nope/!!", "say pong"], { env, cwd: rig.sandbox.project });
    assert.equal(bad.code, 2, `exit 2 (stdout ${bad.stdout}; stderr ${bad.stderr})`);
    assert.match(bad.stdout, /MODEL_UNKNOWN/);
    assert.match(bad.stdout, /available: [^"]*\bmock\b/);
    const good = await runSeat(["run", "--json", "--model", "grok-cli/mock", "say pong"], {
      env,
      cwd: rig.sandbox.project,
    });
    assert.equal(good.code, 0, `a listed model runs (stderr ${good.stderr})`);
    assert.match(good.stdout, /pong/);
  } finally {
    await rig.close();
  }
});
