/*
 * The board is sealed (issue 23 §3), in a real browser: Debian's chromium, headless, driven by playwright-core.
 * The browser opens the board (its token moves into the cookie), then visits another loopback service on
 * another port the way a person would — a typed visit, a link followed from the board, an image, a fetch with
 * credentials, a second tab. That service records every header it receives. Cookies are not port-scoped, so
 * before the seal it received the board's cookie; now it must receive nothing it can use, and the test proves
 * it by replaying everything it got — even at the board's secret address — and failing to read the pending
 * approval or to deny it with the board's own form.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBoard } from "../../../src/board/server.js";
import type { ApprovalAnswer, ApprovalsSource, PendingApproval } from "../../../src/supervision/approvals-source.js";
import { need } from "../../support/requirements.js";
import { chromiumMissing, launchChromium } from "../../support/chromium.js";

const COMMAND = "echo pending-approval-canary";

/** Another service on this host: a page with an image and a credentialed fetch, recording every request. */
async function startOtherService(): Promise<{
  origin: string;
  seen: Array<{ url: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}> {
  const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
  const server: Server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    if (req.url?.startsWith("/pixel")) {
      res.writeHead(200, { "content-type": "image/gif" });
      return res.end(Buffer.from("R0lGODlhAQABAAAAACw=", "base64"));
    }
    if (req.url?.startsWith("/data")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end("{}");
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end(
      `<!doctype html><title>other</title><img id="pixel" src="/pixel.gif"><script>fetch("/data", { credentials: "include" }).then(() => { document.title = "fetched"; });</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test("a credential another loopback service receives from the browser is not enough to read or act on the board", async (t) => {
  if (!need(t, chromiumMissing())) return;
  const home = mkdtempSync(join(tmpdir(), "seat-board-sealed-"));
  const pending: PendingApproval[] = [
    {
      id: "ap_sealed1",
      category: "execute",
      title: "run a command",
      target: { command: COMMAND },
      digest: "d".repeat(64),
      owner: { kind: "named-session", id: "w", name: "w", pid: process.pid },
      askedAt: new Date().toISOString(),
      deadline: new Date(Date.now() + 600_000).toISOString(),
    },
  ];
  const answers: Array<{ id: string; answer: ApprovalAnswer }> = [];
  const source: ApprovalsSource = {
    list: async () => [...pending],
    answer: async (id, answer) => {
      answers.push({ id, answer });
      pending.length = 0;
      return { id, decision: answer.decision };
    },
  };
  const answered = () => answers.map((a) => [a.id, a.answer.decision, a.answer.by]);
  const board = await startBoard({ listing: { home: join(home, ".grok-seat") }, approvals: source });
  const other = await startOtherService();
  const context = await launchChromium(join(home, "profile"));
  try {
    const page = await context.newPage();
    await page.goto(`${board.url}?token=${board.token}`);
    assert.match(await page.content(), /pending-approval-canary/, "the person sees the board");
    // A link followed from the board's page (the Referer would carry the board's address).
    await Promise.all([
      page.waitForURL(`${other.origin}/from-board`),
      page.evaluate(
        `(() => { const a = document.createElement("a"); a.href = ${JSON.stringify(`${other.origin}/from-board`)}; document.body.append(a); a.click(); })()`,
      ),
    ]);
    // A typed visit: its page loads an image and makes a credentialed fetch.
    await page.goto(`${other.origin}/typed`);
    await page.waitForFunction('document.title === "fetched"');
    // A second tab.
    const second = await context.newPage();
    await second.goto(`${other.origin}/second-tab`);
    await second.waitForFunction('document.title === "fetched"');
    // The board still works for the person in the browser.
    await second.goto(board.url);
    assert.match(await second.content(), /pending-approval-canary/);
    const urls = other.seen.map((s) => s.url);
    for (const expected of ["/from-board", "/typed", "/pixel.gif", "/data", "/second-tab"])
      assert.ok(urls.includes(expected), `the other service saw ${expected} (${urls.join(", ")})`);

    const headersSeen = JSON.stringify(other.seen);
    assert.ok(!headersSeen.includes(board.token), "the token reached the other service");
    const secretPath = new URL(board.url).pathname.slice(1, -1);
    if (secretPath !== "")
      assert.ok(!headersSeen.includes(secretPath), "the board's secret path reached the other service");

    // Replay everything the other service got, at the board's root and even at its secret address.
    const origin = new URL(board.url).origin;
    const cookies = [...new Set(other.seen.map((s) => s.headers.cookie).filter((c): c is string => c !== undefined))];
    const tokens = cookies.flatMap((c) =>
      c.split(";").map((part) => decodeURIComponent(part.trim().split("=").slice(1).join("="))),
    );
    for (const cookie of [...cookies, ""]) {
      for (const target of [`${origin}/`, board.url]) {
        const res = await fetch(target, { headers: cookie ? { cookie } : {}, redirect: "manual" });
        const body = await res.text();
        assert.notEqual(res.status, 200, `${target} read with what the other service got`);
        assert.doesNotMatch(body, /pending-approval-canary/);
      }
      for (const formToken of [...tokens, ""]) {
        for (const target of [`${origin}/approvals/ap_sealed1/deny`, `${board.url}approvals/ap_sealed1/deny`]) {
          const res = await fetch(target, {
            method: "POST",
            redirect: "manual",
            headers: { ...(cookie ? { cookie } : {}), origin, "content-type": "application/x-www-form-urlencoded" },
            body: `token=${encodeURIComponent(formToken)}`,
          });
          assert.ok(res.status === 401 || res.status === 404, `${target}: ${res.status}`);
        }
      }
    }
    assert.deepEqual(answers, [], "nothing was answered by a replay");
    assert.equal(pending.length, 1, "the approval is still pending");
    // A form POSTed from a page on the other port (same-site, not same-origin) is refused even at the secret path.
    await second.goto(`${other.origin}/forge`);
    await second.evaluate(
      `(() => { const f = document.createElement("form"); f.method = "post"; f.action = ${JSON.stringify(`${board.url}approvals/ap_sealed1/deny`)}; document.body.append(f); f.submit(); })()`,
    );
    await second.waitForURL(/approvals\/ap_sealed1\/deny/);
    assert.match(await second.content(), /403/);
    assert.deepEqual(answers, [], "nothing was answered from another port's page");
    // The person's own click on the board still answers, once (the browser sends Origin: null under no-referrer).
    await page.goto(board.url);
    await Promise.all([
      page.waitForURL(/answered=/),
      page.locator('#approvals tr[data-approval="ap_sealed1"]').getByRole("button", { name: "Deny" }).click(),
    ]);
    assert.deepEqual(answered(), [["ap_sealed1", "deny", "board"]]);
  } finally {
    await context.close();
    await other.close();
    await board.close();
    rmSync(home, { recursive: true, force: true });
  }
});
