/*
 * Approval by link for a fleet job on the real grok 1.0.41 against the mock and a real redis-server: a `seat worker`
 * with GROK_SEAT_FLEET_KEY holds the job's shell command; a loopback receiver gets the signed webhook (signature and
 * schema verified) whose Approve link goes to `seat board --redis` (started with the same key); chromium opens it
 * (the exact command shown, nothing run), confirms with one tap, and the command runs exactly once — read from the
 * disk. The same link again is refused. A missing binary, redis-server or chromium fails in required mode.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectFleet } from "../../../src/fleet/index.js";
import { need } from "../../support/requirements.js";
import { until, withLiveFleet } from "../../support/fleet-rig.js";
import { startNotifyReceiver } from "../../support/notify-receiver.js";
import { chromiumMissing, launchChromium } from "../../support/chromium.js";
import { startFleetBoard } from "../../support/fleet-board.js";

const SECRET = "whsec-fleet-links-live-0123456789";
const FLEET_KEY = "fleet-links-live-canary-key-0123456789abcdef";
const COMMAND = "echo ran >> fleet-linked.txt";

const SCRIPT = {
  rules: [
    {
      match: "fleet link case",
      replies: [
        {
          toolCalls: [
            {
              name: "run_terminal_command",
              arguments: { command: COMMAND, description: "append to fleet-linked.txt" },
            },
          ],
        },
        { text: "fleet link case went on" },
      ],
    },
  ],
};

test("a fleet job's held shell command, approved by the link in its signed webhook on the seat board serving the fleet: chromium shows the exact command, one tap runs it exactly once, the link then answers no more", async (t) => {
  if (!need(t, chromiumMissing())) return;
  const receiver = await startNotifyReceiver(SECRET);
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    await withLiveFleet(t, SCRIPT, async ({ live, fleet, hostEnv }) => {
      try {
        const xdg = join(fleet.root, "xdg");
        mkdirSync(join(xdg, "grok-seat"), { recursive: true });
        writeFileSync(
          join(xdg, "grok-seat", "config.json"),
          JSON.stringify({
            notify: { targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secret: SECRET } } },
          }),
        );
        await fleet.startWorker("host-a", {
          env: { ...hostEnv, XDG_CONFIG_HOME: xdg, GROK_SEAT_FLEET_KEY: FLEET_KEY },
        });
        const board = await startFleetBoard(fleet.root, fleet.redis.url, FLEET_KEY);
        cleanups.push(() => board.stop());
        const boardLine = board.url;
        const client = await connectFleet(fleet.redis.url, { env: { GROK_SEAT_FLEET_KEY: FLEET_KEY } });
        cleanups.push(() => client.close());
        const job = await client.enqueue({
          prompt: "please do the fleet link case",
          cwd: live.sandbox.project,
          notify: ["hook"],
        });
        const waiting = (await until(
          () => [...receiver.accepted.values()].find((e) => (e as { event: string }).event === "waiting"),
          90_000,
          "the signed waiting notification",
        )) as { approval: { command: string; approve_url?: string } };
        assert.equal(waiting.approval.command, COMMAND);
        const approveUrl = waiting.approval.approve_url;
        assert.ok(approveUrl, `the notification carries the link: ${JSON.stringify(waiting)}`);
        assert.equal(new URL(approveUrl).origin, new URL(boardLine).origin);
        assert.ok(
          receiver.requests.every((q) => q.refused === undefined),
          "every webhook verified",
        );

        const artefacts = mkdtempSync(join(tmpdir(), "seat-fleet-links-live-"));
        const context = await launchChromium(join(artefacts, "profile"));
        cleanups.push(async () => {
          await context.close();
          rmSync(artefacts, { recursive: true, force: true });
        });
        const page = await context.newPage();
        await page.goto(approveUrl);
        assert.equal(await page.locator("#target").innerText(), COMMAND, "the page shows the exact command");
        const marker = join(live.sandbox.project, "fleet-linked.txt");
        assert.equal(existsSync(marker), false, "opening the link ran nothing");
        await Promise.all([page.waitForLoadState("load"), page.locator("#confirm").click()]);
        assert.equal(await page.locator("#outcome").innerText(), "Approved");
        assert.equal((await job.result()).status, "completed");
        assert.equal(readFileSync(marker, "utf8"), "ran\n", "the approved command ran exactly once");
        await page.goto(approveUrl);
        assert.match(await page.locator("#detail").innerText(), /APPROVAL_LINK_USED/);
        assert.equal(await page.locator("#confirm").count(), 0);
      } finally {
        for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      }
    });
  } finally {
    await receiver.close();
  }
});
