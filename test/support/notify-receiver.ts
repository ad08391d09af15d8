/*
 * A webhook receiver on loopback that checks what a real service would: POST only, a JSON body that validates
 * against grok-seat.notify.v1, an X-Seat-Signature that verifies (constant time) with the shared secret, and
 * dedupe by event id. It can be told to fail the first N requests (500) or to never answer, to prove retries.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { NOTIFY_EVENT_SCHEMA } from "../../src/notify/index.js";

const require = createRequire(import.meta.url);
const { Ajv2020 } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
const addFormats = require("ajv-formats") as typeof import("ajv-formats").default;

export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** Why the receiver refused it (bad signature, schema), or undefined when accepted. */
  refused?: string;
  at: number;
}

export interface NotifyReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Accepted webhook events by id (a retry of one id is counted once here). */
  accepted: Map<string, unknown>;
  failNext(count: number): void;
  hang(on: boolean): void;
  close(): Promise<void>;
}

export async function startNotifyReceiver(secret: string): Promise<NotifyReceiver> {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(NOTIFY_EVENT_SCHEMA);
  const requests: ReceivedRequest[] = [];
  const accepted = new Map<string, unknown>();
  let failing = 0;
  let hanging = false;
  const hung: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const record: ReceivedRequest = { path: req.url ?? "", headers: req.headers, body, at: Date.now() };
      requests.push(record);
      if (hanging) {
        hung.push(res);
        return;
      }
      if (failing > 0) {
        failing -= 1;
        record.refused = "scripted failure";
        res.writeHead(500).end();
        return;
      }
      if (req.method !== "POST") {
        record.refused = "method";
        res.writeHead(405).end();
        return;
      }
      if (req.url?.startsWith("/hook")) {
        const expected = `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
        const got = String(req.headers["x-seat-signature"] ?? "");
        if (got.length !== expected.length || !timingSafeEqual(Buffer.from(got), Buffer.from(expected))) {
          record.refused = "signature";
          res.writeHead(401).end();
          return;
        }
        let data: unknown;
        try {
          data = JSON.parse(body);
        } catch {
          record.refused = "json";
          res.writeHead(400).end();
          return;
        }
        if (!validate(data)) {
          record.refused = `schema: ${ajv.errorsText(validate.errors)}`;
          res.writeHead(422).end();
          return;
        }
        accepted.set((data as { id: string }).id, data);
      }
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    accepted,
    failNext(count) {
      failing = count;
    },
    hang(on) {
      hanging = on;
    },
    async close() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
