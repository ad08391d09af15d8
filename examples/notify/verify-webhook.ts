import { createHmac, timingSafeEqual } from "node:crypto";

/** True when `signature` (the X-Seat-Signature header) signs `rawBody` with `secret`. */
export function verifySeatSignature(rawBody: string, signature: string, secret: string): boolean {
  const expected = `sha256=${createHmac("sha256", secret).update(rawBody, "utf8").digest("hex")}`;
  return signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

const secret = "an-example-secret-0123456789";
const body = JSON.stringify({ id: "e1", event: "done", time: new Date().toISOString(), subject: { kind: "run", id: "r1" }, text: "finished its turn" });
const header = `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
console.log(`signature verifies: ${verifySeatSignature(body, header, secret)}`);
