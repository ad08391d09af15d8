/*
 * Leader registration: the `register` frame we send and the `registered` frame we accept.
 * Owns: building the register frame and reading `registered` into a typed record.
 * Does not own: the socket or the wait for frames (client.ts); version floors (seat/).
 * Invariant: control is allowed only for leader protocol 1 with control_v1 === true.
 * Spec: grok-wire.md §12.2
 */
import { SeatError } from "../errors.js";
import type { LeaderFrame } from "./frames.js";

/** The only leader protocol version this client speaks. */
export const LEADER_PROTOCOL_VERSION = 1;

/** What the leader told us in `registered`, as received (versions are the caller's to judge). */
export interface LeaderRegistration {
  clientId: number | null;
  /** True once the leader is ready (at `registered` or after a later `leader_ready`). */
  ready: boolean;
  leaderProtocolVersion: number | null;
  leaderBinaryVersion: string | null;
  leaderCapabilities: Record<string, unknown>;
  /** True when `control()` is allowed: protocol 1 and `leader_capabilities.control_v1 === true`. */
  controlAvailable: boolean;
  /** The `registered` frame exactly as decoded. */
  frame: LeaderFrame;
}

/** Builds the register frame: mode "stdio", every capability false or null. */
export function buildRegisterFrame(clientType: string, clientVersion: string | null): LeaderFrame {
  return {
    type: "register",
    client_type: clientType,
    mode: "stdio",
    capabilities: {
      yolo_mode: false,
      auto_mode: false,
      default_model: null,
      client_version: clientVersion,
      code_nav_enabled: false,
      terminal: false,
      fs_read: false,
      fs_write: false,
      status_line: false,
    },
  };
}

/** Reads a `registered` frame; throws LEADER_PROTOCOL_ERROR when its fields have the wrong types. */
export function parseRegistered(frame: LeaderFrame, socketPath: string): LeaderRegistration {
  const clientId = frame.client_id;
  const version = frame.leader_protocol_version;
  const binary = frame.leader_binary_version;
  const caps = frame.leader_capabilities;
  const bad =
    (clientId !== undefined && typeof clientId !== "number") ||
    (version !== undefined && typeof version !== "number") ||
    (binary !== undefined && typeof binary !== "string") ||
    (caps !== undefined && (typeof caps !== "object" || caps === null || Array.isArray(caps))) ||
    typeof frame.ready !== "boolean";
  if (bad) {
    throw new SeatError(
      "LEADER_PROTOCOL_ERROR",
      `The leader on ${socketPath} sent a registered frame with unexpected field types. It is not a protocol-1 leader we can drive.`,
      { context: { socketPath, frame } },
    );
  }
  const leaderCapabilities = (caps ?? {}) as Record<string, unknown>;
  const leaderProtocolVersion = (version as number | undefined) ?? null;
  return {
    clientId: (clientId as number | undefined) ?? null,
    ready: frame.ready as boolean,
    leaderProtocolVersion,
    leaderBinaryVersion: (binary as string | undefined) ?? null,
    leaderCapabilities,
    controlAvailable: leaderProtocolVersion === LEADER_PROTOCOL_VERSION && leaderCapabilities.control_v1 === true,
    frame,
  };
}

/** A SeatError for a leader `error` frame (1 expected register, 2 already registered, 3 registration timeout). */
export function errorFrameToSeatError(frame: LeaderFrame, socketPath: string): SeatError {
  const code = typeof frame.code === "number" ? frame.code : null;
  const message = typeof frame.message === "string" ? frame.message : "(no message)";
  return new SeatError(
    "LEADER_PROTOCOL_ERROR",
    `The leader on ${socketPath} answered with error ${code ?? "?"}: ${message}. This connection cannot drive the seat; close it and report the leader error.`,
    { context: { socketPath, leaderErrorCode: code, leaderErrorMessage: message } },
  );
}
