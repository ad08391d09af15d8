import { createPermissionGate, createSession, parsePolicyFlags } from "grok-seat";
import { createSandbox, startMockModel } from "grok-seat/testing";

// A scripted model on 127.0.0.1. grok reaches MCP tools through its `use_tool` tool, naming a host tool
// `host-tools__<name>`: a script that wants a host tool called must use that name.
const mock = await startMockModel({
  script: {
    rules: [{
      match: "ticket 42",
      replies: [
        { text: "Let me look it up. ", toolCalls: [{ name: "use_tool", arguments: { tool_name: "host-tools__lookup_ticket", tool_input: { id: "42" } } }] },
        { text: "The tracker says: {{last_tool_result}}" },
      ],
    }],
  },
});
// A throwaway HOME/GROK_HOME whose config.toml points grok at the mock (auto-update, telemetry off).
const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl });
const session = await createSession({
  cwd: sandbox.project,
  agentEnv: sandbox.env,                  // grok's HOME, GROK_HOME, PATH…: the sandbox, not yours
  tools: [{
    name: "lookup_ticket",
    description: "Fetch a ticket by id",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    execute: async ({ id }) => `ticket ${id}: open`,
  }],
  permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["read", "mcp"] }) }),
});
try {
  const turn = await session.prompt("What is ticket 42 about?");
  console.log(turn.text);
  console.log(`${mock.requests.length} model requests, all to ${mock.baseUrl}`);
} finally {
  await session.dispose();
  await mock.close();
  sandbox.cleanup();
}
