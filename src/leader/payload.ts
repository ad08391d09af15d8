/*
 * ACP payloads: the JSON-RPC message carried inside an `acp` leader frame.
 * Owns: turning an `acp` frame's payload (a JSON *string*) into one JSON-RPC message.
 * Does not own: framing (frames.ts) or what the message means (acp/).
 * Invariant: exactly one JSON-RPC 2.0 object per payload; anything else is LEADER_FRAME_INVALID.
 * Spec: grok-wire.md §12.2 ("payload is a JSON string containing exactly one JSON-RPC message")
 */
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { SeatError } from "../errors.js";
import type { LeaderFrame } from "./frames.js";

/** Wraps one JSON-RPC message as an `acp` frame; the payload is the message's plain JSON text. */
export function acpFrame(message: AnyMessage): LeaderFrame {
  return { type: "acp", payload: JSON.stringify(message) };
}

/** Parses an `acp` frame's payload into a JSON-RPC message; throws LEADER_FRAME_INVALID otherwise. */
export function parseAcpPayload(frame: LeaderFrame, socketPath: string): AnyMessage {
  const payload = frame.payload;
  const invalid = (why: string, cause?: unknown): SeatError =>
    new SeatError(
      "LEADER_FRAME_INVALID",
      `An acp frame from the leader on ${socketPath} ${why}. The connection is unusable; close it.`,
      {
        context: { socketPath, preview: typeof payload === "string" ? payload.slice(0, 120) : typeof payload },
        cause,
      },
    );
  if (typeof payload !== "string") throw invalid("has no string payload");
  let message: unknown;
  try {
    message = JSON.parse(payload);
  } catch (cause) {
    throw invalid("carries a payload that is not JSON", cause);
  }
  if (typeof message !== "object" || message === null || Array.isArray(message))
    throw invalid("carries a payload that is not a JSON object");
  if ((message as Record<string, unknown>).jsonrpc !== "2.0") throw invalid('carries a payload without jsonrpc "2.0"');
  return message as AnyMessage;
}
