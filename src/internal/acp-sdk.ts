/*
 * ACP SDK on use: the one dynamic import of `@agentclientprotocol/sdk` (and the zod schemas it loads, about
 *   0.15–0.25 s of module loading), shared by grok/ (the stdio stream) and acp/ (the client connection).
 * Owns: loading the SDK once, when a connection is first made, not when grok-seat is imported.
 * Does not own: anything the SDK does.
 * Why: `import "grok-seat"` must stay light; and a CLI turn spawns the agent first and loads the SDK while the
 *   agent boots, so the load overlaps the agent's own start-up instead of adding to it.
 */
type AcpSdk = typeof import("@agentclientprotocol/sdk");

let loading: Promise<AcpSdk> | undefined;

/** The ACP SDK module, imported on the first call and cached. */
export function loadAcpSdk(): Promise<AcpSdk> {
  loading ??= import("@agentclientprotocol/sdk");
  return loading;
}
