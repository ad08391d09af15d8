/*
 * Leader frames: the byte framing of the TUI leader's private socket.
 * Owns: encoding one frame (u32 big-endian length + UTF-8 JSON object with a `type`) and
 *   incremental decoding of a byte stream into frames, with the 64 MiB limit.
 * Does not own: the socket, the register handshake or ACP payloads (client.ts).
 * Invariant: a length above the limit is refused before any of its body is buffered; every
 *   decoding failure is a SeatError LEADER_FRAME_INVALID and poisons the decoder.
 * Spec: grok-wire.md §12.2
 */
import { SeatError } from "../errors.js";

/** Largest frame body grok's leader accepts, in bytes (64 MiB). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;

/** One decoded leader frame: a JSON object tagged by its snake_case `type`. */
export interface LeaderFrame {
  type: string;
  [key: string]: unknown;
}

/** Encodes one frame as u32 big-endian length + UTF-8 JSON; plain JSON.stringify, so `/` is never escaped. */
export function encodeFrame(frame: LeaderFrame): Buffer {
  const body = Buffer.from(JSON.stringify(frame), "utf8");
  if (body.length > MAX_FRAME_BYTES) {
    throw new SeatError(
      "LEADER_FRAME_INVALID",
      `Refusing to send a ${frame.type} frame of ${body.length} bytes; the leader accepts at most ${MAX_FRAME_BYTES}. Send a smaller message.`,
      { context: { frameType: frame.type, frameBytes: body.length, maxBytes: MAX_FRAME_BYTES } },
    );
  }
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Incremental frame decoder: feed it socket chunks in order, get back whole frames.
 * Handles frames split across chunks and several frames per chunk. Not safe for concurrent use.
 */
export class FrameDecoder {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #bodyBytes: number | null = null;
  #offset = 0;
  #failure: SeatError | null = null;

  constructor(options: { maxBytes?: number } = {}) {
    this.#maxBytes = options.maxBytes ?? MAX_FRAME_BYTES;
  }

  /** Consumes a chunk and returns every frame it completes; throws LEADER_FRAME_INVALID on bad input. */
  push(chunk: Uint8Array): LeaderFrame[] {
    if (this.#failure) throw this.#failure;
    if (chunk.byteLength > 0) {
      this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      this.#buffered += chunk.byteLength;
    }
    const frames: LeaderFrame[] = [];
    for (;;) {
      if (this.#bodyBytes === null) {
        if (this.#buffered < 4) break;
        const length = this.#take(4).readUInt32BE(0);
        if (length > this.#maxBytes) {
          this.#fail(
            `The leader announced a frame of ${length} bytes at stream offset ${this.#offset}; the limit is ${this.#maxBytes}. The connection is unusable; close it.`,
            { frameBytes: length, maxBytes: this.#maxBytes, offset: this.#offset },
          );
        }
        this.#bodyBytes = length;
      }
      if (this.#buffered < this.#bodyBytes) break;
      const body = this.#take(this.#bodyBytes);
      frames.push(this.#parse(body));
      this.#offset += 4 + this.#bodyBytes;
      this.#bodyBytes = null;
    }
    return frames;
  }

  /** Declares end of stream; throws LEADER_FRAME_INVALID when a partial frame is left over. */
  end(): void {
    if (this.#failure) throw this.#failure;
    if (this.#buffered > 0 || this.#bodyBytes !== null) {
      const expected = this.#bodyBytes === null ? "a 4-byte length header" : `a ${this.#bodyBytes}-byte body`;
      this.#fail(
        `The leader stream ended in the middle of a frame: ${this.#buffered} bytes of ${expected} at stream offset ${this.#offset}. The last message was lost.`,
        { bufferedBytes: this.#buffered, expectedBodyBytes: this.#bodyBytes, offset: this.#offset },
      );
    }
  }

  /** Bytes received but not yet part of a complete frame (header included once read). */
  get pendingBytes(): number {
    return this.#buffered + (this.#bodyBytes === null ? 0 : 4);
  }

  #take(n: number): Buffer {
    let out: Buffer;
    const first = this.#chunks[0]!;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const head = this.#chunks[0]!;
        const used = Math.min(head.length, n - filled);
        head.copy(out, filled, 0, used);
        filled += used;
        if (used === head.length) this.#chunks.shift();
        else this.#chunks[0] = head.subarray(used);
      }
    }
    this.#buffered -= n;
    return out;
  }

  #parse(body: Buffer): LeaderFrame {
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(body));
    } catch (cause) {
      this.#fail(
        `A leader frame of ${body.length} bytes at stream offset ${this.#offset} is not UTF-8 JSON.`,
        {
          frameBytes: body.length,
          offset: this.#offset,
          preview: body.subarray(0, 80).toString("latin1"),
        },
        cause,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      this.#fail(`A leader frame at stream offset ${this.#offset} is JSON but not an object.`, {
        offset: this.#offset,
        preview: body.subarray(0, 80).toString("utf8"),
      });
    }
    const type = (value as Record<string, unknown>).type;
    if (typeof type !== "string" || type.length === 0) {
      this.#fail(`A leader frame at stream offset ${this.#offset} has no string "type".`, {
        offset: this.#offset,
        preview: body.subarray(0, 80).toString("utf8"),
      });
    }
    return value as LeaderFrame;
  }

  #fail(message: string, context: Record<string, unknown>, cause?: unknown): never {
    this.#chunks = [];
    this.#buffered = 0;
    this.#failure = new SeatError("LEADER_FRAME_INVALID", message, { context, cause });
    throw this.#failure;
  }
}
