/*
 * A loopback TCP proxy in front of redis-server that loses one reply: the first time a client sends data matching
 * `target`, the proxy forwards it (Redis runs the command) and drops the connection before the reply comes back.
 * ioredis then reconnects and sends the command again: what a Redis restart or a network blip does to a client.
 */
import { createServer, connect as connectTcp, type Socket } from "node:net";

export interface DropReplyProxy {
  /** redis://127.0.0.1:<proxy port>. */
  url: string;
  /** How many replies it dropped (0 or 1). */
  tripped(): number;
  close(): Promise<void>;
}

/** A TCP proxy to 127.0.0.1:`port` that, the first time a client sends data matching `target`, forwards it and
 * then drops the connection before Redis's reply can come back. */
export async function dropOneReply(port: number, target: (data: string) => boolean): Promise<DropReplyProxy> {
  let tripped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((down) => {
    const up = connectTcp(port, "127.0.0.1");
    sockets.add(down).add(up);
    let cut = false;
    const end = () => {
      down.destroy();
      up.destroy();
    };
    up.on("data", (d: Buffer) => void (cut || down.write(d)));
    down.on("data", (d: Buffer) => {
      up.write(d);
      if (tripped === 0 && target(d.toString("latin1"))) {
        tripped += 1;
        cut = true;
        setTimeout(end, 300); // Redis runs the command meanwhile; its reply is thrown away
      }
    });
    for (const s of [up, down]) {
      s.on("error", end);
      s.on("close", end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no proxy port");
  return {
    url: `redis://127.0.0.1:${address.port}`,
    tripped: () => tripped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
