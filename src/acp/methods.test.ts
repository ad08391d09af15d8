import { test } from "node:test";
import assert from "node:assert/strict";
import { methods } from "@agentclientprotocol/sdk";
import { ACP } from "./methods.js";

test("the mirrored ACP method table equals the SDK's own `methods` (staleness check)", () => {
  assert.deepEqual(ACP, methods);
});
