/*
 * The test-only `seat` entry: installs the hooks a test names, then runs the real CLI (src/cli/main.ts) in this
 * process. The shipped bin never reads these variables; only tests spawn this file (SEAT_HOOKED_MAIN).
 *   GROK_SEAT_TEST_HOOKS      comma list: hold-before-dispatch, throw-uncaught, reject-unhandled,
 *                             agent-pins-from-env, mcp-stray-console, notify-no-coalesce
 *   GROK_SEAT_TEST_AGENT_PINS with agent-pins-from-env: JSON {name: {dir, package, version}}, the install table
 */
import { installCliHooks, type CliHooks } from "../../src/cli/hooks.js";

const names = new Set(
  (process.env.GROK_SEAT_TEST_HOOKS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean),
);
const hooks: CliHooks = {};
if (names.has("hold-before-dispatch")) hooks.holdBeforeDispatch = true;
if (names.has("notify-no-coalesce")) hooks.notifyCoalesceMs = 0;
if (names.has("agent-pins-from-env")) {
  const pins = JSON.parse(process.env.GROK_SEAT_TEST_AGENT_PINS ?? "{}") as Record<
    string,
    { dir: string; package: string; version: string }
  >;
  hooks.agentInstallTable = () => Object.fromEntries(Object.entries(pins).map(([name, pin]) => [name, { pin }]));
}
if (names.has("mcp-stray-console")) {
  hooks.onMcpServing = () => {
    console.log("a stray console.log from somewhere in the process");
    console.info("and a stray console.info");
    console.warn(`a stray warning quoting the key: ${process.env.XAI_API_KEY ?? "(none)"}`);
  };
}
installCliHooks(hooks);

// The real CLI: its last-resort handlers are installed when it loads, before the throws below fire.
await import("../../src/cli/main.js");
if (names.has("throw-uncaught"))
  setImmediate(() => {
    throw new Error("test hook throw-uncaught");
  });
if (names.has("reject-unhandled")) void Promise.reject(new Error("test hook reject-unhandled"));
