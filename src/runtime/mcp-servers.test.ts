import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { toAcpMcpServers, type OperatorMcpServer } from "./mcp-servers.js";

test("reshapes stdio, http and sse servers into ACP wire entries", () => {
  const wire = toAcpMcpServers([
    { name: "files", command: "node", args: ["fs.js"], env: { ROOT: "/srv" } },
    { type: "http", name: "docs", url: "https://docs.example/mcp", headers: { Authorization: "Bearer t" } },
    { type: "sse", name: "events", url: "http://127.0.0.1:9/sse" },
  ]);
  assert.deepEqual(wire, [
    { name: "files", command: "node", args: ["fs.js"], env: [{ name: "ROOT", value: "/srv" }] },
    {
      type: "http",
      name: "docs",
      url: "https://docs.example/mcp",
      headers: [{ name: "Authorization", value: "Bearer t" }],
    },
    { type: "sse", name: "events", url: "http://127.0.0.1:9/sse", headers: [] },
  ]);
  assert.deepEqual(toAcpMcpServers(undefined), []);
});

test("refuses bad entries naming the index, server and field", () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ name: "a" }, /#0 "a": command must be a non-empty string/],
    [{ name: "a", command: "x", env: { K: 1 } }, /env\.K must be a string/],
    [{ name: "a", command: "x", args: "nope" }, /args must be an array of strings/],
    [{ type: "http", name: "a", url: "ftp://x" }, /url must use http: or https:/],
    [{ type: "http", name: "a", url: "not a url" }, /url is not a URL/],
    [{ type: "ws", name: "a", url: "ws://x" }, /type must be "stdio", "http" or "sse"/],
    [{ command: "x" }, /name must be a non-empty string/],
  ];
  for (const [entry, pattern] of cases) {
    assert.throws(
      () => toAcpMcpServers([entry as OperatorMcpServer]),
      (e) => isSeatError(e, "TOOL_MCP_SERVER_INVALID") && pattern.test(e.message),
      String(pattern),
    );
  }
  assert.throws(
    () =>
      toAcpMcpServers([
        { name: "a", command: "x" },
        { name: "a", command: "y" },
      ]),
    (e) => isSeatError(e, "TOOL_MCP_SERVER_INVALID") && /#1 "a": name is used by an earlier entry/.test(e.message),
  );
});
