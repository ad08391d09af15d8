/*
 * `seat board` as a user runs it (the built CLI, a temp seat home, no fleet): the token is printed once inside
 * the address, every request without it is 401, the first visit moves it into a same-site cookie, a token from
 * GROK_SEAT_BOARD_TOKEN is never printed, and an address other machines reach is refused without one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat, startSeat } from "../../support/cli.js";

async function printedUrl(run: ReturnType<typeof startSeat>): Promise<string> {
  const deadline = Date.now() + 30_000;
  while (!/board: \S+\n/.test(run.stdout())) {
    if (Date.now() > deadline) throw new Error(`no address printed: ${run.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return /board: (\S+)\n/.exec(run.stdout())![1]!;
}

test("seat board prints its token once, answers 401 without it, and moves it into a same-site cookie", async () => {
  const home = mkdtempSync(join(tmpdir(), "seat-board-cli-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GROK_SEAT_HOME: join(home, ".grok-seat") };
  const run = startSeat(["board"], { env });
  try {
    const url = new URL(await printedUrl(run));
    assert.equal(url.hostname, "127.0.0.1");
    const token = url.searchParams.get("token")!;
    assert.ok(token.length >= 16);
    // Everything lives under a secret path: outside it nothing answers, not even with the token.
    assert.match(url.pathname, /^\/[A-Za-z0-9_-]{32}\/$/);
    assert.equal((await fetch(`${url.origin}/?token=${token}`, { redirect: "manual" })).status, 404);
    const base = `${url.origin}${url.pathname}`;
    assert.equal((await fetch(base, { redirect: "manual" })).status, 401);
    assert.equal((await fetch(`${base}?token=wrong-${token}`, { redirect: "manual" })).status, 401);
    const first = await fetch(url, { redirect: "manual" });
    assert.equal(first.status, 303);
    assert.equal(first.headers.get("location"), url.pathname);
    assert.equal(
      first.headers.get("set-cookie"),
      `seat_board=${token}; HttpOnly; SameSite=Strict; Path=${url.pathname}`,
    );
    assert.equal(first.headers.get("referrer-policy"), "no-referrer");
    const page = await fetch(base, { headers: { cookie: (first.headers.get("set-cookie") ?? "").split(";")[0]! } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Nothing is live\./);
    const post = await fetch(`${base}approvals/x/allow`, {
      method: "POST",
      redirect: "manual",
      headers: { authorization: `Bearer ${token}` },
      body: "",
    });
    assert.equal(post.status, 403, "a POST without this board's origin is refused");
  } finally {
    run.child.kill("SIGTERM");
    const ended = await run.done;
    assert.equal(ended.code, 0, ended.stderr);
    assert.equal(ended.stdout.match(/token=/g)?.length, 1, "the token is printed once");
    rmSync(home, { recursive: true, force: true });
  }
});

test("seat board never prints a token from GROK_SEAT_BOARD_TOKEN, and refuses a non-loopback address without one", async () => {
  const home = mkdtempSync(join(tmpdir(), "seat-board-cli-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GROK_SEAT_HOME: join(home, ".grok-seat") };
  try {
    const refused = await runSeat(["board", "--host", "0.0.0.0", "--json"], { env });
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(JSON.parse(refused.stdout.trim()).code, "BOARD_UNSAFE_ADDRESS");
    const secret = "board-token-from-the-environment";
    const run = startSeat(["board"], { env: { ...env, GROK_SEAT_BOARD_TOKEN: secret } });
    try {
      const url = await printedUrl(run);
      assert.ok(!url.includes(secret) && !url.includes("token="));
      assert.equal((await fetch(url, { headers: { authorization: `Bearer ${secret}` } })).status, 200);
    } finally {
      run.child.kill("SIGTERM");
      const ended = await run.done;
      assert.ok(!ended.stdout.includes(secret) && !ended.stderr.includes(secret));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
