import { createPermissionGate, createSession, parsePolicyFlags } from "grok-seat";

const session = await createSession({
  cwd: process.cwd(),
  model: "grok/default",                  // grok's own default (or none); e.g. "grok-cli/grok-4.5" picks one
  tools: [{
    name: "lookup_ticket",
    description: "Fetch a ticket by id",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    execute: async ({ id }) => `ticket ${id}: open`,
  }],
  // Without this gate no call needing approval can run (nobody to ask): the turn ends PERMISSION_NO_APPROVER.
  permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["read", "mcp"] }) }),
  callbacks: {
    onText: (t) => { process.stdout.write(t); },
    onToolStart: (e) => console.error("tool", e.title),
    onRetry: (e) => console.error(`grok retries: ${e.reason} (${e.attempt}/${e.max})`),
  },
  failFastAfterRetries: 3,                // end a turn grok cannot get to its model: MODEL_UNREACHABLE
});
if (session.state !== "ready") console.error(session.diagnostics);   // createSession never throws
const turn = await session.prompt("What is ticket 42 about?");      // prompt() never rejects
console.log(turn.stopReason, turn.diagnostic);
await session.dispose();                                            // cancel, then the whole process tree
