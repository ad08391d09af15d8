/*
 * `seat demo`: the whole stack offline — the real grok from npm, a throwaway GROK_HOME, the built-in scripted
 *   model on loopback, a host tool through the bridge — printing a streamed answer and a tool call.
 * Runs inside a fresh user+network namespace (`unshare -rn`) when the machine allows it, so nothing can
 * leave loopback; says so either way.
 */
import type { SeatEvent } from "../../acp/index.js";
import { ensureGrokBinary } from "../../grok/index.js";
import { startMockModel } from "../../mock-model/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../permissions/index.js";
import { createSession } from "../../runtime/index.js";
import { createSandbox, isInLoopbackNamespace, runInLoopbackNamespace } from "../../sandbox/index.js";
import type { HostTool } from "../../tools/index.js";
import { builtFile } from "../../internal/package-files.js";
import { parseFlags } from "../args.js";
import { EXIT, createHumanPrinter, paletteFor, writeJson } from "../output.js";
import type { Command } from "./command.js";

const DEMO_PROMPT = "Demo: count the words in 'grok seat drives grok safely' with the host tool.";

const wordCount: HostTool = {
  name: "word_count",
  description: "Counts the words in a text.",
  inputSchema: {
    type: "object",
    properties: { text: { type: "string" } },
    required: ["text"],
    additionalProperties: false,
  },
  execute: (args) => {
    const text = (args as { text: string }).text;
    return `${text.split(/\s+/).filter(Boolean).length} words`;
  },
};

export const demoCommand: Command = {
  name: "demo",
  help: `Usage: seat demo [--json] [--no-netns]

Runs the real grok binary (from the pinned npm package) against the built-in scripted model server on
127.0.0.1, in a throwaway HOME/GROK_HOME. Nothing reaches the network: with --no-netns it still only
talks to loopback, but without the namespace's guarantee.

Examples:
  seat demo
  seat demo --json | jq -c 'select(.type=="tool_end")'`,
  async run(argv) {
    const args = parseFlags("demo", argv, { json: { type: "boolean" }, "no-netns": { type: "boolean" } });
    const json = args.values.json === true;
    const say = (line: string) =>
      json ? writeJson({ type: "demo", message: line }) : process.stderr.write(`${line}\n`);
    if (!args.values["no-netns"] && !isInLoopbackNamespace()) {
      const status = runInLoopbackNamespace([process.execPath, builtFile("cli", "seat.js"), "demo", ...argv]);
      if (status !== undefined) return status;
      say("(user+network namespaces are not available here; running on the host, loopback only)");
    }
    const palette = paletteFor(process.stderr);
    say(
      palette.yellow(
        `── OFFLINE DEMO MODE ── scripted model on loopback, throwaway GROK_HOME${isInLoopbackNamespace() ? ", inside unshare -rn" : ""}`,
      ),
    );
    const binary = await ensureGrokBinary();
    const mock = await startMockModel({
      script: {
        chunkDelayMs: 40,
        rules: [
          {
            match: "Demo:",
            replies: [
              {
                text: "I'll ask the host tool to count them. ",
                toolCalls: [
                  {
                    name: "use_tool",
                    arguments: {
                      tool_name: "host-tools__word_count",
                      tool_input: { text: "grok seat drives grok safely" },
                    },
                  },
                ],
              },
              {
                text: "The host tool answered: {{last_tool_result}}. (The scripted model quotes the tool result grok sent back to it; the tool ran in this process.)",
              },
            ],
          },
        ],
      },
    });
    const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl, prefix: "grok-seat-demo-" });
    say(palette.dim(`grok ${binary.path} (${binary.source}); model ${mock.baseUrl}`));
    say(palette.dim(`> ${DEMO_PROMPT}`));
    const printer = createHumanPrinter(palette);
    const onEvent = (event: SeatEvent) => {
      if (!json) return printer.onEvent(event);
      if (["text", "tool_start", "tool_end", "permission", "diagnostic", "done", "usage"].includes(event.type))
        writeJson(event);
    };
    const session = await createSession({
      cwd: sandbox.project,
      grokCliBinaryPath: binary.path,
      agentEnv: sandbox.env,
      tools: [wordCount],
      permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["read", "mcp"] }) }),
      callbacks: { onEvent },
      diagnosticsAsText: false,
      turnTimeoutMs: 120_000,
    });
    try {
      if (session.state !== "ready") return EXIT.turnFailed;
      const result = await session.prompt(DEMO_PROMPT);
      if (!json) printer.finish();
      const toolCalls = mock.requests.filter((r) => r.kind === "tool_followup").length;
      say(
        palette.dim(
          `── done: stop reason ${result.stopReason ?? "none"}, ${toolCalls} tool round trip(s), ${mock.requests.length} model request(s), all on loopback`,
        ),
      );
      return result.diagnostic ? EXIT.turnFailed : EXIT.ok;
    } finally {
      await session.dispose();
      await mock.close();
      sandbox.cleanup();
    }
  },
};
