/*
 * SSE writer: one paced, cuttable event writer shared by the mock's streaming dialects.
 * Owns: the per-chunk delay and the `cutAfterChunks` fault (close the stream mid-answer).
 * Does not own: any dialect's event shapes (responses.ts, messages.ts, server.ts).
 */
import type { ServerResponse } from "node:http";
import type { MockReply } from "./script.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends one named (or unnamed) SSE event; resolves false once the stream was cut or the client left. */
export type SseSend = (data: unknown, event?: string, paced?: boolean) => Promise<boolean>;

/** Opens the SSE response and returns a sender honouring the reply's delay and cut. */
export function openSse(res: ServerResponse, reply: MockReply): SseSend {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const delay = reply.chunkDelayMs ?? 0;
  let sent = 0;
  return async (data, event, paced = true) => {
    if (paced) {
      if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) {
        res.destroy();
        return false;
      }
      if (delay > 0) await sleep(delay);
      sent += 1;
    }
    if (res.destroyed) return false;
    res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
    return true;
  };
}

/** A text split into streamable words (each keeps its trailing space). */
export function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
