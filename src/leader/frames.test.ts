import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeFrame, FrameDecoder, MAX_FRAME_BYTES, type LeaderFrame } from "./frames.js";
import { isSeatError } from "../errors.js";

function rawFrame(body: Buffer, announced = body.length): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt32BE(announced, 0);
  return Buffer.concat([header, body]);
}

/** Splits `bytes` at the given cut points (sorted, deduplicated, clamped). */
function chunk(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const p of points) {
    out.push(bytes.subarray(last, p));
    last = p;
  }
  out.push(bytes.subarray(last));
  return out;
}

const frameArb: fc.Arbitrary<LeaderFrame> = fc
  .record({ type: fc.string({ minLength: 1 }), payload: fc.jsonValue() }, { requiredKeys: ["type"] })
  .map((r) => JSON.parse(JSON.stringify(r)) as LeaderFrame);

test("encodes a frame as a big-endian u32 length followed by UTF-8 JSON", () => {
  const bytes = encodeFrame({ type: "register", client_type: "grok-seat", note: "é/x" });
  const body = '{"type":"register","client_type":"grok-seat","note":"é/x"}';
  assert.equal(bytes.readUInt32BE(0), Buffer.byteLength(body));
  assert.equal(bytes.subarray(4).toString("utf8"), body);
});

test("never escapes a forward slash in the JSON body", () => {
  const payload = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: {} });
  const bytes = encodeFrame({ type: "acp", payload });
  assert.ok(!bytes.toString("utf8").includes("\\/"));
  assert.ok(bytes.toString("utf8").includes("session/new"));
});

test("decodes any sequence of frames back unchanged however the bytes are chunked", () => {
  fc.assert(
    fc.property(fc.array(frameArb, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 20 }), (frames, cuts) => {
      const stream = Buffer.concat(frames.map((f) => encodeFrame(f)));
      const decoder = new FrameDecoder();
      const decoded: LeaderFrame[] = [];
      for (const piece of chunk(stream, cuts)) decoded.push(...decoder.push(piece));
      decoder.end();
      assert.deepEqual(decoded, frames);
    }),
  );
});

test("decodes several frames delivered in one read", () => {
  const decoder = new FrameDecoder();
  const both = Buffer.concat([encodeFrame({ type: "pong" }), encodeFrame({ type: "leader_ready" })]);
  assert.deepEqual(decoder.push(both), [{ type: "pong" }, { type: "leader_ready" }]);
});

test("refuses an announced length above 64 MiB before any body byte arrives", () => {
  const decoder = new FrameDecoder();
  const header = Buffer.alloc(4);
  header.writeUInt32BE(MAX_FRAME_BYTES + 1, 0);
  assert.throws(
    () => decoder.push(header),
    (err: unknown) => {
      assert.ok(isSeatError(err, "LEADER_FRAME_INVALID"));
      assert.equal(err.context.frameBytes, MAX_FRAME_BYTES + 1);
      return true;
    },
  );
});

test("accepts a frame exactly at a configured limit and refuses one byte more", () => {
  const body = Buffer.from('{"type":"x"}');
  assert.deepEqual(new FrameDecoder({ maxBytes: body.length }).push(rawFrame(body)), [{ type: "x" }]);
  assert.throws(
    () => new FrameDecoder({ maxBytes: body.length - 1 }).push(rawFrame(body)),
    (e) => isSeatError(e, "LEADER_FRAME_INVALID"),
  );
});

test("rejects a body that is not JSON, not an object, or has no string type", () => {
  for (const body of ["not json", "[1,2]", "42", "null", '{"kind":"x"}', '{"type":7}', '{"type":""}']) {
    assert.throws(
      () => new FrameDecoder().push(rawFrame(Buffer.from(body))),
      (e) => isSeatError(e, "LEADER_FRAME_INVALID"),
      body,
    );
  }
});

test("rejects a body that is not valid UTF-8", () => {
  const body = Buffer.from([0x7b, 0x22, 0x74, 0xff, 0xfe, 0x7d]);
  assert.throws(
    () => new FrameDecoder().push(rawFrame(body)),
    (e) => isSeatError(e, "LEADER_FRAME_INVALID"),
  );
});

test("reports a truncated frame at end of stream", () => {
  const full = encodeFrame({ type: "registered", client_id: 1 });
  for (const cut of [1, 3, 4, full.length - 1]) {
    const decoder = new FrameDecoder();
    assert.deepEqual(decoder.push(full.subarray(0, cut)), []);
    assert.throws(
      () => decoder.end(),
      (e) => isSeatError(e, "LEADER_FRAME_INVALID"),
      `cut at ${cut}`,
    );
  }
});

test("stays failed after an invalid frame instead of resynchronising on garbage", () => {
  const decoder = new FrameDecoder();
  assert.throws(() => decoder.push(rawFrame(Buffer.from("nope"))));
  assert.throws(
    () => decoder.push(encodeFrame({ type: "pong" })),
    (e) => isSeatError(e, "LEADER_FRAME_INVALID"),
  );
});

test("arbitrary garbage never throws anything but a LEADER_FRAME_INVALID SeatError", () => {
  fc.assert(
    fc.property(fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }), (pieces) => {
      const decoder = new FrameDecoder({ maxBytes: 1024 });
      try {
        for (const piece of pieces) {
          for (const frame of decoder.push(piece)) assert.equal(typeof frame.type, "string");
        }
        decoder.end();
      } catch (err) {
        if (!isSeatError(err, "LEADER_FRAME_INVALID")) throw err;
      }
    }),
  );
});
