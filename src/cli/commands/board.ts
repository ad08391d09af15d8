/*
 * `seat board [--redis URL] [--port N] [--host H] [--queue-actions]`: serves the attention page (live items, their
 *   states, pending approvals with approve / deny) and, with --redis, bull-board's view of the fleet's queues
 *   (read-only unless --queue-actions), until Ctrl-C. The access token comes from GROK_SEAT_BOARD_TOKEN, or is
 *   made fresh and printed once; everything is served under a secret path derived from it.
 */
import { answerApproval, listApprovals } from "../../supervision/index.js";
import { SeatError } from "../../errors.js";
import type { ApprovalsSource } from "../../supervision/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeUnmasked } from "../output.js";
import { seatHome } from "../../home/index.js";
import { REDIS_HELP } from "./fleet-common.js";
import type { Command } from "./command.js";

/**
 * The approvals the board lists and answers. None until approvals/ is merged: then this returns
 * `{ list: () => listApprovals({ redis }), answer: (id, a) => answerApproval(id, a, { redis }) }`.
 */
/** Pending approvals of this user's runs (their control sockets) and, with --redis, of the fleet. */
function approvalsSource(redis: string | undefined): ApprovalsSource {
  const where = redis ? { redis } : {};
  return { list: () => listApprovals(where), answer: (id, answer) => answerApproval(id, answer, where) };
}

/**
 * Publishes this board's links address for the fleet in Redis (MAC'd with the fleet's link key) and keeps it alive
 * while the board runs; close() withdraws it if it is still this board's.
 */
async function publishFleetLinks(
  fleet: typeof import("../../fleet/index.js"),
  redisUrl: string,
  key: Buffer,
  linksUrl: string,
): Promise<{ close(): Promise<void> }> {
  const redis = fleet.connectRedis(fleet.parseRedisUrl(redisUrl), { name: "grok-seat-board" });
  let last = await fleet.publishBoardLinks(redis, key, linksUrl);
  const refresh = setInterval(
    () =>
      void fleet.publishBoardLinks(redis, key, linksUrl).then(
        (record) => void (last = record),
        () => undefined,
      ),
    fleet.BOARD_LINKS_TTL_MS / 3,
  );
  return {
    async close() {
      clearInterval(refresh);
      await fleet.withdrawBoardLinks(redis, last).catch(() => undefined);
      redis.disconnect();
    },
  };
}

export const boardCommand: Command = {
  name: "board",
  help: `Usage: seat board [--redis URL] [--port N] [--host H] [--public-url URL] [--queue-actions]

  --port N          port to listen on (default: any free port)
  --host H          address to listen on (default 127.0.0.1); any other than loopback needs the token in
                    GROK_SEAT_BOARD_TOKEN
  --public-url URL  the https address a TLS reverse proxy serves this board at (or http://localhost:PORT of an
                    SSH tunnel); approval links in notifications use it instead of the listening address
  --queue-actions   let bull-board act on jobs (retry, remove, promote, pause…); default read-only. A job whose
                    spec was rewritten is still refused by its worker (FLEET_JOB_TAMPERED).
${REDIS_HELP}

Open the printed address once: the token then moves into a cookie the browser sends only to the board's secret
path (never to another service on this host). Outside that path everything is 404; without the token, 401.
While it runs, approval notifications from this seat home carry signed, single-use Approve / Deny links to it
(docs/board.md shows how to reach it from a phone safely).

Examples:
  seat board --redis redis://127.0.0.1:6379
  GROK_SEAT_BOARD_TOKEN=… seat board --port 8088`,
  async run(argv) {
    // --json only shapes an error (main.ts prints it as a JSON object); the board itself prints one line.
    const args = parseFlags("board", argv, {
      redis: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      json: { type: "boolean" },
      "queue-actions": { type: "boolean" },
      "public-url": { type: "string" },
    });
    if (args.positionals.length > 0)
      throw new SeatError("CLI_USAGE", `seat board takes no arguments (got "${args.positionals[0]}").`);
    const rawPort = stringFlag(args, "port");
    const port = rawPort === undefined ? 0 : Number(rawPort);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw new SeatError("CLI_USAGE", `seat board: --port takes a port number (0–65535), not "${rawPort}".`);
    const redis = stringFlag(args, "redis");
    const envToken = process.env.GROK_SEAT_BOARD_TOKEN || undefined;
    const fleetModule = redis === undefined ? undefined : await import("../../fleet/index.js");
    const fleet = redis === undefined ? undefined : await fleetModule!.connectFleet(redis);
    // With --redis and a fleet key, links a fleet's workers sign (with a key derived from it) are served here too.
    const fleetSecret = fleetModule?.fleetKey();
    const fleetLinkKey = fleetSecret === undefined ? undefined : fleetModule!.fleetLinkKey(fleetSecret);
    const approvals = approvalsSource(redis);
    const { startBoard } = await import("../../board/index.js");
    let board;
    try {
      board = await startBoard({
        ...(stringFlag(args, "host") ? { host: stringFlag(args, "host") } : {}),
        port,
        ...(envToken ? { token: envToken } : {}),
        ...(redis ? { redisUrl: redis } : {}),
        ...(args.values["queue-actions"] === true ? { queueActions: true } : {}),
        listing: fleet ? { fleet } : {},
        links: {
          home: seatHome(),
          ...(stringFlag(args, "public-url") !== undefined ? { publicUrl: stringFlag(args, "public-url")! } : {}),
          ...(fleetLinkKey ? { fleetKey: fleetLinkKey } : {}),
        },
        ...(approvals ? { approvals } : {}),
      });
    } catch (error) {
      await fleet?.close();
      throw error;
    }
    // The token is printed once, and only when it was made here (one from the environment stays there). It is a
    // registered secret, masked in every other output; this line is the one place it is shown, to its owner.
    if (board.linksUrl === undefined)
      process.stderr.write(
        "board: approval links are off on a shared address without --public-url (they would travel as plain http); notifications say `seat approve ID` instead\n",
      );
    const published =
      fleetModule && redis !== undefined && fleetLinkKey && board.linksUrl !== undefined
        ? await publishFleetLinks(fleetModule, redis, fleetLinkKey, board.linksUrl)
        : undefined;
    if (redis !== undefined && fleetLinkKey === undefined)
      process.stderr.write(
        "board: fleet approval links are off: no fleet key (GROK_SEAT_FLEET_KEY); fleet notifications say `seat approve ID --redis URL` instead\n",
      );
    if (envToken) process.stdout.write(`board: ${board.url}\n`);
    else writeUnmasked(process.stdout, `board: ${board.url}?token=${board.token}\n`);
    await new Promise<void>((resolve) => {
      process.once("SIGINT", resolve);
      process.once("SIGTERM", resolve);
    });
    await published?.close();
    await board.close();
    await fleet?.close();
    return EXIT.ok;
  },
};
