/*
 * Replay agent: an in-memory ACP peer that answers a client with the `in` side of a recorded grok transcript.
 * For each request the client sends, it plays the recorded messages that followed the matching recorded
 * request (same method, in order), rewriting the response id to the client's id and the recorded prompt ID
 * to the client's. Reverse requests (permission, id 0) are played as recorded and wait for the client's answer.
 * The transcripts are recorded from the real grok by `npm run record-transcripts` (scripts/record-transcripts.mjs).
 */
import { existsSync, readFileSync } from "node:fs";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";

interface Line {
  dir: "in" | "out";
  msg: Record<string, any>;
}

/** The project's recorded transcripts (test/fixtures/transcripts, copied beside the compiled tests by the build). */
export const TRANSCRIPTS = new URL("../fixtures/transcripts/", import.meta.url);

/** Reads a transcript file into lines. */
export function readTranscript(name: string): Line[] {
  if (!existsSync(new URL(name, TRANSCRIPTS)))
    throw new Error(`missing fixture test/fixtures/transcripts/${name}: run \`npm run record-transcripts\``);
  return readFileSync(new URL(name, TRANSCRIPTS), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
}

/** A Stream for connectAcp whose peer replays `lines`; `sent` records what the client wrote. */
export function replayStream(lines: Line[]): { stream: Stream; sent: AnyMessage[] } {
  const sent: AnyMessage[] = [];
  let controller!: ReadableStreamDefaultController<AnyMessage>;
  const readable = new ReadableStream<AnyMessage>({ start: (c) => void (controller = c) });
  let cursor = 0;
  let clientPromptId: string | undefined;
  let recordedPromptId: string | undefined;
  const rewrite = (value: unknown): unknown => {
    if (recordedPromptId === undefined || clientPromptId === undefined) return value;
    return JSON.parse(
      JSON.stringify(value).split(JSON.stringify(recordedPromptId)).join(JSON.stringify(clientPromptId)),
    );
  };
  const ids = new Map<unknown, unknown>(); // recorded request id → the client's id for the same request
  const playUntilNextOut = () => {
    while (cursor < lines.length && lines[cursor]!.dir === "in") {
      const msg = { ...lines[cursor]!.msg };
      cursor += 1;
      if (!("method" in msg) && ids.has(msg.id)) msg.id = ids.get(msg.id);
      controller.enqueue(rewrite(msg) as AnyMessage);
      if ("method" in msg && "id" in msg) return; // a reverse request: wait for the client's answer
    }
  };
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      sent.push(message);
      const msg = message as Record<string, any>;
      if ("method" in msg) {
        if (msg.method === "session/prompt") clientPromptId = msg.params?._meta?.promptId;
        const at = lines.findIndex((l, i) => i >= cursor && l.dir === "out" && l.msg.method === msg.method);
        if (at < 0) {
          if ("id" in msg)
            controller.enqueue({
              jsonrpc: "2.0",
              id: msg.id,
              error: { code: -32601, message: `not in transcript: ${msg.method}` },
            } as AnyMessage);
          return;
        }
        if (msg.method === "session/prompt") recordedPromptId = lines[at]!.msg.params?._meta?.promptId;
        cursor = at + 1;
        if ("id" in msg) {
          ids.set(lines[at]!.msg.id, msg.id);
          playUntilNextOut();
        }
      } else {
        // The client's answer to a reverse request: skip the recorded answer, continue the recording.
        const at = lines.findIndex((l, i) => i >= cursor && l.dir === "out" && !("method" in l.msg));
        if (at >= 0) cursor = at + 1;
        playUntilNextOut();
      }
    },
  });
  return { stream: { readable, writable }, sent };
}
