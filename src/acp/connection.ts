/*
 * ACP connection: the client side of one ACP peer over any message Stream (child stdio or leader socket).
 * Owns: wiring the SDK client app — session/update and `_x.ai/*` notifications, permission requests —
 *   to plain handler functions, and refusing client fs/terminal requests (we advertise them off).
 * Does not own: the transport (grok/, leader/) or session state (session-core.ts).
 * Invariant: handlers are called synchronously in arrival order (the SDK starts notification handlers in
 *   order but does not await them, so nothing here awaits before handing a message on).
 */
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  Stream,
} from "@agentclientprotocol/sdk";
import { loadAcpSdk } from "../internal/acp-sdk.js";
import { ACP } from "./methods.js";

/** What the connection hands upward. */
export interface AcpHandlers {
  onSessionUpdate(notification: SessionNotification): void;
  onExtNotification(method: string, params: unknown): void;
  onPermissionRequest(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
}

/** A live client connection to one ACP agent. */
export interface AcpPeer {
  /** Sends a request (typed for ACP methods, or any method by string) and resolves its result. */
  request<T = unknown>(method: string, params: unknown, options?: { signal?: AbortSignal }): Promise<T>;
  notify(method: string, params: unknown): Promise<void>;
  /** Settles when the connection ends, for whatever reason. */
  readonly closed: Promise<void>;
  readonly signal: AbortSignal;
  close(): void;
}

/**
 * Connects the client side of ACP over `stream`. Async because the ACP SDK is loaded on first use;
 * messages that arrive meanwhile wait in the stream.
 */
export async function connectAcp(stream: Stream, handlers: AcpHandlers, name = "grok-seat"): Promise<AcpPeer> {
  const { client, RequestError } = await loadAcpSdk();
  const app = client({ name })
    .onNotification(ACP.client.session.update, ({ params }) => {
      handlers.onSessionUpdate(params);
    })
    .onNotification("*", ({ method, params }) => {
      handlers.onExtNotification(method, params);
    })
    .onRequest(ACP.client.session.requestPermission, ({ params, signal }) =>
      handlers.onPermissionRequest(params, signal),
    )
    .onRequest("*", ({ method }) => {
      // We advertise fs and terminal as off; anything else is unknown to us.
      throw RequestError.methodNotFound(method);
    });
  const connection = app.connect(stream);
  const agent = connection.agent;
  return {
    request<T>(method: string, params: unknown, options?: { signal?: AbortSignal }): Promise<T> {
      // Any method by string: the SDK's untyped overload (grok's extensions are not in its table).
      const send = agent.request.bind(agent) as (
        m: string,
        p: unknown,
        o?: { signal?: AbortSignal },
      ) => Promise<unknown>;
      return send(method, params, options?.signal ? { signal: options.signal } : undefined) as Promise<T>;
    },
    notify(method: string, params: unknown): Promise<void> {
      return agent.notify(method, params);
    },
    closed: connection.closed,
    signal: connection.signal,
    close() {
      connection.close();
    },
  };
}

/** ACP's "authentication required" error number (the SDK's RequestError.authRequired). */
const AUTH_REQUIRED = -32000;

/** True when an agent answered a request with ACP's "authentication required" error (-32000). */
export function isAuthRequired(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === AUTH_REQUIRED;
}
