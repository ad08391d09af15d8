import { test } from "node:test";
import assert from "node:assert/strict";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { isSeatError } from "../errors.js";
import { createPolicy } from "../permissions/index.js";
import { createToolContext } from "./context.js";
import { createToolRegistry } from "./tool-registry.js";

const OPTIONS = { policy: createPolicy({}), roots: ["/"], agents: ["grok"], approvalTimeoutMs: 1_000 };

test("drain waits for every tracked work, then runs the clean-ups; work tracked after shutdown began is refused", async () => {
  const context = createToolContext({} as McpServer, OPTIONS, createToolRegistry({} as McpServer));
  const order: string[] = [];
  let finish!: () => void;
  const work = context.track(
    new Promise<void>((resolve) => (finish = resolve)).then(() => void order.push("work ended")),
  );
  context.onShutdown(async () => void order.push("clean-up"));
  context.shutdown();
  assert.equal(context.closing.aborted, true);
  const drained = context.drain().then(() => void order.push("drained"));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(order, [], "drain waits for the running work");
  finish();
  await Promise.all([work, drained]);
  assert.deepEqual(order, ["work ended", "clean-up", "drained"]);
  await assert.rejects(context.track(Promise.resolve(1)), (e) => isSeatError(e, "MCP_CALL_CANCELLED"));
});
