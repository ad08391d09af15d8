/*
 * Resume on the REAL agents, offline: `seat run -s NAME --agent X` three times, in three processes, back to
 * back. Where the agent advertises session/resume or session/load, each later run attaches the exact agent
 * session and its model request carries the first turn's nonce. An agent advertising neither is recorded n/a
 * (and must refuse with SESSION_NOT_RESUMABLE rather than start a fresh session under the old name).
 * Gemini advertises session/load but loses the session it loads (its profile's attachRefused): the second run is
 * refused before Gemini starts, and a separate check shows on Gemini itself, launched as a custom agent (no
 * profile, so grok-seat attaches), what a load does to the session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe } from "node:test";
import { defaultInstallRoot } from "../../src/agents/index.js";
import { agentLaunch, createSession, probeAcp } from "../../src/runtime/index.js";
import { startAgentRig, AGENTS_UNDER_TEST as AGENTS } from "./rig.js";
import { agentTest, notApplicable } from "./results.js";
import { runSeat } from "../support/cli.js";

const NONCE = "NONCE-5e1b77";

const runCli = (args: string[], env: NodeJS.ProcessEnv, cwd: string) => runSeat(args, { env, cwd });

type Line = { type: string; [k: string]: unknown };
const lines = (out: string): Line[] =>
  out
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

const minuteOf = (ms: number) => Math.floor(ms / 60_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits, when less than `needMs` is left of this UTC minute, for the next one: what follows fits in one minute. */
async function roomInThisMinute(needMs: number): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await sleep(left + 50);
}

for (const agent of AGENTS) {
  describe(`${agent}: resume across processes (real agent, offline)`, () => {
    agentTest(
      agent,
      ["resume"],
      `${agent}: a second and a third seat run -s NAME --agent ${agent}, each in a new process, continue the agent session (the nonce reaches the model)`,
      async () => {
        const rig = await startAgentRig(agent, {
          rules: [
            { match: "remember the nonce", replies: [{ text: "noted" }] },
            { match: "what was the nonce", replies: [{ text: "it was in the history" }] },
          ],
        });
        try {
          const env = {
            ...rig.options.env,
            ...rig.options.agentEnv,
            GROK_SEAT_HOME: join(rig.home, ".grok-seat"),
            NO_COLOR: "1",
          };
          const probe = await probeAcp({
            launch: { ...agentLaunch(rig.profile, {}, env), chooseAuth: rig.profile.chooseAuth },
            cwd: rig.cwd,
          });
          assert.ok(probe.acpReady, `the agent answered initialize: ${JSON.stringify(probe)}`);
          const advertised = probe.loadSession === true || probe.capabilities?.resume === true;
          const first = await runCli(
            ["run", "-s", "work", "--agent", agent, "--json", `please remember the nonce ${NONCE}`],
            env,
            rig.cwd,
          );
          assert.equal(first.code, 0, `first run: ${first.stdout.slice(-1500)} ${first.stderr.slice(-1500)}`);
          const opened1 = lines(first.stdout).find((l) => l.type === "session");
          assert.equal(opened1?.resumed, false);
          const second = await runCli(
            ["run", "-s", "work", "--agent", agent, "--json", "what was the nonce?"],
            env,
            rig.cwd,
          );
          if (rig.profile.attachRefused) {
            assert.ok(advertised, "the agent advertises an attach grok-seat refuses");
            assert.equal(second.code, 1, `${second.stdout.slice(-1500)} ${second.stderr.slice(-1500)}`);
            const error = lines(second.stdout).find((l) => l.type === "error");
            assert.equal(error?.code, "SESSION_NOT_RESUMABLE", second.stdout);
            assert.match(String(error?.message), /grok-seat does not attach .* sessions/);
            assert.ok(
              !rig.mock.requests.some((r) => JSON.stringify(r.body ?? "").includes("what was the nonce")),
              "the agent was never asked: nothing started in the old session's place",
            );
            notApplicable(rig.profile.attachRefused);
          }
          if (!advertised) {
            assert.notEqual(second.code, 0, "an agent that cannot resume refuses instead of starting over");
            assert.match(second.stdout + second.stderr, /SESSION_NOT_RESUMABLE/);
            notApplicable("the agent advertises neither session/resume nor session/load");
          }
          assert.equal(second.code, 0, `second run: ${second.stdout.slice(-1500)} ${second.stderr.slice(-1500)}`);
          const third = await runCli(
            ["run", "-s", "work", "--agent", agent, "--json", "and what was the nonce now?"],
            env,
            rig.cwd,
          );
          assert.equal(third.code, 0, `third run: ${third.stdout.slice(-1500)} ${third.stderr.slice(-1500)}`);
          for (const [run, out, question] of [
            ["second", second.stdout, "what was the nonce"],
            ["third", third.stdout, "and what was the nonce now"],
          ] as const) {
            const opened = lines(out).find((l) => l.type === "session");
            assert.equal(opened?.resumed, true, `${run}: ${JSON.stringify(opened)}`);
            assert.equal(opened?.agentSessionId, opened1?.agentSessionId, `${run}: the exact agent session`);
            const asked = rig.mock.requests.filter((r) => JSON.stringify(r.body ?? "").includes(question));
            assert.ok(asked.length > 0, `${run}: the turn reached the model`);
            assert.ok(
              asked.some((r) => JSON.stringify(r.body).includes(NONCE)),
              `${run}: the model request carries the first turn's nonce`,
            );
          }
        } finally {
          await rig.cleanup();
        }
      },
    );
  });
}

describe("gemini: what session/load does to a Gemini session (real agent, offline)", {
  skip: !AGENTS.includes("gemini"),
}, () => {
  agentTest(
    "gemini",
    ["attach-refused"],
    "gemini: a load in the session's first UTC minute finds no such session; a later load works once, and after Gemini's next start the session is gone",
    async () => {
      const rig = await startAgentRig("gemini", {
        rules: [
          { match: "remember the nonce", replies: [{ text: "noted" }] },
          { match: "what was the nonce", replies: [{ text: "it was in the history" }] },
        ],
      });
      try {
        // Gemini as a custom agent: no profile, so nothing stops grok-seat from attaching.
        const asCustom = {
          ...rig.options,
          agent: undefined,
          agentCommand: rig.profile.launchArgv({ installRoot: defaultInstallRoot() }),
          agentEnv: { ...rig.options.agentEnv, GEMINI_CLI_NO_RELAUNCH: "true" },
        };
        const made = async (nonce: string): Promise<string> => {
          const session = await createSession(asCustom);
          assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
          const turn = await session.prompt(`please remember the nonce ${nonce}`);
          assert.equal(turn.stopReason, "end_turn", JSON.stringify(turn));
          await session.dispose();
          return session.id!;
        };
        const lostAttach = async (sessionId: string, why: string) => {
          const attached = await createSession({ ...asCustom, resume: { sessionId } });
          assert.equal(attached.state, "dead", `${why}: Gemini fixed its load; drop attachRefused from its profile`);
          assert.equal(attached.diagnostics[0]?.code, "SESSION_NOT_RESUMABLE", JSON.stringify(attached.diagnostics));
          // Gemini's "no such session": "No previous sessions found…" when it lists none, else "Invalid session identifier".
          assert.match(
            attached.diagnostics[0]!.message,
            /No previous sessions found for this project|Invalid session identifier "[0-9a-f-]+"/,
            why,
          );
        };
        await roomInThisMinute(25_000);
        const madeIn = minuteOf(Date.now());
        const early = await made("NONCE-early");
        const late = await made(NONCE);
        await lostAttach(early, "a load in the minute the session was made");
        assert.equal(minuteOf(Date.now()), madeIn, "both sessions were made, and the early load sent, in one minute");

        await sleep(60_000 - (Date.now() % 60_000) + 50);
        const once = await createSession({ ...asCustom, resume: { sessionId: late } });
        assert.equal(once.state, "ready", `a load after that minute works: ${JSON.stringify(once.diagnostics)}`);
        const turn = await once.prompt("what was the nonce?");
        assert.equal(turn.stopReason, "end_turn", JSON.stringify(turn));
        await once.dispose();
        const asked = rig.mock.requests.filter((r) => JSON.stringify(r.body ?? "").includes("what was the nonce"));
        assert.ok(
          asked.some((r) => JSON.stringify(r.body).includes(NONCE)),
          "the loaded session had its history",
        );

        // Any next start of Gemini in the project runs its session cleanup.
        const other = await createSession(asCustom);
        assert.equal(other.state, "ready", JSON.stringify(other.diagnostics));
        assert.equal((await other.prompt("please remember the nonce NONCE-other")).stopReason, "end_turn");
        await other.dispose();
        await lostAttach(late, "a second load, after Gemini started again");
      } finally {
        await rig.cleanup();
      }
    },
  );
});
