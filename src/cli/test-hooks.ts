/*
 * Test hooks: behaviour only the project's own tests and benches switch on, never a user flag.
 * Owns: reading GROK_SEAT_TEST_HOOKS (a comma-separated list of hook names) and the list of known hooks.
 * Does not own: what a hook does (the command that asks for it).
 * Invariant: hooks never appear in `--help` or the argument parsers; an unknown name is ignored.
 */

/** The variable that switches test hooks on, e.g. `GROK_SEAT_TEST_HOOKS=hold-before-dispatch`. */
export const TEST_HOOKS_ENV = "GROK_SEAT_TEST_HOOKS";

/**
 * Every hook the code knows: hold-before-dispatch parks a delivery after its fence until killed;
 * throw-uncaught and reject-unhandled make `seat` throw outside any verb's try (the last-resort handlers' test);
 * agent-pins-from-env makes `seat agents install` take its install table from GROK_SEAT_TEST_AGENT_PINS (JSON
 * `{name: {dir, package, version}}`), so a test installs a tiny local package instead of the real agents;
 * mcp-stray-console makes `seat mcp` call console.log and console.info once it serves (stdout must stay protocol-only).
 */
export type TestHook = "hold-before-dispatch" | "throw-uncaught" | "reject-unhandled" | "agent-pins-from-env" | "mcp-stray-console";

/** True when `hook` is named in GROK_SEAT_TEST_HOOKS of `env`. */
export function testHookEnabled(hook: TestHook, env: NodeJS.ProcessEnv = process.env): boolean {
  return (env[TEST_HOOKS_ENV] ?? "").split(",").map((s) => s.trim()).includes(hook);
}
