/*
 * A missing key on the REAL agent (issue 15 §3): `seat run --agent codex` with no key and no provider config is
 * exit 4 (ACP_NOT_AUTHENTICATED) naming Codex's own variables, not exit 1 ACP_HANDSHAKE_FAILED with no hint.
 * Codex answers session/new with ACP's -32000 "Authentication required"; the handshake maps it.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "node:test";
import { agentsDirEnv, AGENTS_UNDER_TEST as AGENTS } from "./rig.js";
import { agentTest } from "./results.js";
import { runSeat } from "../support/cli.js";

describe("a missing key is exit 4 naming the agent's variables (real agent)", () => {
  for (const agent of AGENTS.filter((a) => a === "codex")) {
    agentTest(
      agent,
      ["no-key"],
      `seat run --agent ${agent} without a key exits 4 with ACP_NOT_AUTHENTICATED naming OPENAI_API_KEY and CODEX_API_KEY`,
      async () => {
        const root = mkdtempSync(join(tmpdir(), `gs-agent-nokey-${agent}-`));
        try {
          const home = join(root, "home");
          const cwd = join(root, "work");
          mkdirSync(home);
          mkdirSync(cwd);
          // A fresh HOME: no ~/.codex login or provider, and no key in the environment.
          const env = {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: home,
            TMPDIR: process.env.TMPDIR ?? tmpdir(),
            NO_COLOR: "1",
            ...agentsDirEnv(),
          };
          const { code, stdout, stderr } = await runSeat(["run", "--agent", agent, "--json", "hello"], { env, cwd });
          assert.equal(code, 4, `exit 4 (stdout ${stdout}; stderr ${stderr})`);
          const lines = stdout
            .split("\n")
            .filter(Boolean)
            .map(
              (l) =>
                JSON.parse(l) as { diagnostic?: { code: string; message: string }; code?: string; message?: string },
            );
          const refusal = lines.map((l) => l.diagnostic ?? l).find((d) => d.code === "ACP_NOT_AUTHENTICATED");
          assert.ok(refusal, `an ACP_NOT_AUTHENTICATED line: ${stdout}`);
          assert.match(refusal.message ?? "", /codex is not authenticated .*set OPENAI_API_KEY or CODEX_API_KEY/);
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      },
    );
  }
});
