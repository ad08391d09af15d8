import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { isSeatError } from "../errors.js";
import { ApprovalQueue, parseAnswer } from "../approvals/index.js";
import { createPermissionGate, parsePolicyFlags } from "../permissions/index.js";
import {
  approvalLinks,
  claimLink,
  ensureLinkKey,
  findLinkKey,
  readBoardAddress,
  signLink,
  verifyLink,
} from "./index.js";
import { startBoard } from "../board/server.js";
import { makeZombie } from "../../test/support/zombie.js";

function tempHome(t: { after(fn: () => void): void }): string {
  const home = mkdtempSync(join(tmpdir(), "seat-links-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

const DIGEST = "ab".repeat(32);
const later = () => new Date(Date.now() + 60_000);

test("the link key is made once, 0600, and a key file that is not private is refused", (t) => {
  const home = tempHome(t);
  assert.equal(findLinkKey(home), undefined, "a run never makes the key");
  const key = ensureLinkKey(home);
  assert.equal(statSync(join(home, "board", "link.key")).mode & 0o777, 0o600);
  assert.deepEqual(ensureLinkKey(home), key, "the same key on the next start");
  chmodSync(join(home, "board", "link.key"), 0o644);
  assert.throws(
    () => ensureLinkKey(home),
    (e) => isSeatError(e, "BOARD_LINK_KEY_UNSAFE"),
  );
});

test("a signed link verifies; one changed character, another key or a passed expiry is refused with its own code", (t) => {
  const home = tempHome(t);
  const key = ensureLinkKey(home);
  const link = signLink(key, { id: "ap_0123456789abcdef", decision: "allow", digest: DIGEST, deadline: later() });
  const query = () => new URLSearchParams({ d: link.digest, e: String(link.expires), s: link.signature });
  assert.equal(verifyLink(key, "/ap_0123456789abcdef/allow", query()).id, "ap_0123456789abcdef");
  assert.throws(
    () => verifyLink(key, "/ap_0123456789abcdef/deny", query()),
    (e) => isSeatError(e, "APPROVAL_LINK_INVALID"),
    "the decision is signed",
  );
  assert.throws(
    () => verifyLink(key, "/ap_0123456789abcdee/allow", query()),
    (e) => isSeatError(e, "APPROVAL_LINK_INVALID"),
    "the id is signed",
  );
  const flipped = query();
  flipped.set("d", `${DIGEST.slice(0, -1)}c`);
  assert.throws(
    () => verifyLink(key, "/ap_0123456789abcdef/allow", flipped),
    (e) => isSeatError(e, "APPROVAL_LINK_INVALID"),
    "the digest is signed",
  );
  const extended = query();
  extended.set("e", String(link.expires + 3_600));
  assert.throws(
    () => verifyLink(key, "/ap_0123456789abcdef/allow", extended),
    (e) => isSeatError(e, "APPROVAL_LINK_INVALID"),
    "the expiry is signed",
  );
  const sig = query();
  sig.set("s", `${link.signature.slice(0, -1)}${link.signature.endsWith("A") ? "B" : "A"}`);
  assert.throws(
    () => verifyLink(key, "/ap_0123456789abcdef/allow", sig),
    (e) => isSeatError(e, "APPROVAL_LINK_INVALID"),
  );
  const other = Buffer.alloc(32, 7);
  assert.throws(
    () => verifyLink(other, "/ap_0123456789abcdef/allow", query()),
    (e) => isSeatError(e, "APPROVAL_LINK_INVALID"),
    "another home's key",
  );
  assert.throws(
    () => verifyLink(key, "/ap_0123456789abcdef/allow", query(), (link.expires + 1) * 1000),
    (e) => isSeatError(e, "APPROVAL_LINK_EXPIRED"),
  );
});

test("a link is claimed once: the second claim of the same link is APPROVAL_LINK_USED", (t) => {
  const home = tempHome(t);
  const key = ensureLinkKey(home);
  const link = signLink(key, { id: "ap_0123456789abcdef", decision: "allow", digest: DIGEST, deadline: later() });
  claimLink(home, link);
  assert.throws(
    () => claimLink(home, link),
    (e) => isSeatError(e, "APPROVAL_LINK_USED"),
  );
});

test("no links without a running board of this home; a board records its address, its links carry no token, and closing it removes the record", async (t) => {
  const home = tempHome(t);
  const approval = { id: "ap_0123456789abcdef", digest: DIGEST, deadline: later().toISOString() };
  assert.equal(approvalLinks(home, approval), undefined, "no board ever ran");
  const board = await startBoard({ listing: { home: join(home, "none") }, links: { home } });
  let closed = false;
  t.after(() => (closed ? undefined : board.close()));
  const links = approvalLinks(home, approval);
  assert.ok(links, "a board is running");
  const root = new URL(board.url).origin;
  assert.ok(links.approve_url.startsWith(`${root}/`) && links.deny_url.startsWith(`${root}/`));
  for (const url of [links.approve_url, links.deny_url]) {
    assert.ok(!url.includes(board.token), "never the token");
    assert.ok(!url.includes(new URL(board.url).pathname.slice(1, -1)), "never the board's secret path");
  }
  assert.equal(
    readFileSync(join(home, "board", "link.key"), "utf8").includes(board.token),
    false,
    "the key is not the token",
  );
  await board.close();
  closed = true;
  assert.equal(readBoardAddress(home), undefined);
  assert.equal(approvalLinks(home, approval), undefined, "the board stopped");
  // Two boards of one home in one process: closing the older one leaves the newer one's record.
  const older = await startBoard({ listing: { home: join(home, "none") }, links: { home } });
  const newer = await startBoard({ listing: { home: join(home, "none") }, links: { home } });
  await older.close();
  assert.equal(readBoardAddress(home)?.links_url, newer.linksUrl);
  await newer.close();
  // A record left by a board killed with SIGKILL names a dead process: no links either.
  writeFileSync(
    join(home, "board", "address.json"),
    JSON.stringify({
      schema: "grok-seat.board-address.v1",
      links_url: "http://127.0.0.1:9",
      pid: 2 ** 22 + 7,
      started_at: "",
    }),
  );
  assert.equal(approvalLinks(home, approval), undefined);
  // So does one whose board died and was never reaped (a zombie under a pid 1 that does not reap).
  const zombie = await makeZombie();
  t.after(() => zombie.end());
  writeFileSync(
    join(home, "board", "address.json"),
    JSON.stringify({
      schema: "grok-seat.board-address.v1",
      links_url: "http://127.0.0.1:9",
      pid: zombie.pid,
      started_at: "",
    }),
  );
  assert.equal(approvalLinks(home, approval), undefined, "a zombie board sends no links");
});

test("a board on a shared address without a public URL records no address, so runs send no plain-http links", async (t) => {
  const home = tempHome(t);
  const board = await startBoard({
    host: "0.0.0.0",
    token: "a-shared-board-token-0123456789",
    listing: { home: join(home, "none") },
    links: { home },
  });
  t.after(() => board.close());
  assert.equal(board.linksUrl, undefined);
  assert.equal(readBoardAddress(home), undefined);
  assert.equal(
    approvalLinks(home, { id: "ap_0123456789abcdef", digest: DIGEST, deadline: later().toISOString() }),
    undefined,
  );
});

test("a public URL must be https (or a loopback tunnel); links then start from it", async (t) => {
  const home = tempHome(t);
  await assert.rejects(startBoard({ links: { home, publicUrl: "http://board.example.com" } }), (e) =>
    isSeatError(e, "CLI_USAGE"),
  );
  await assert.rejects(startBoard({ links: { home, publicUrl: "https://user:pw@board.example.com" } }), (e) =>
    isSeatError(e, "CLI_USAGE"),
  );
  const board = await startBoard({
    listing: { home: join(home, "none") },
    links: { home, publicUrl: "https://board.example.com/seat/" },
  });
  t.after(() => board.close());
  const links = approvalLinks(home, { id: "ap_0123456789abcdef", digest: DIGEST, deadline: later().toISOString() });
  assert.match(
    links?.approve_url ?? "",
    /^https:\/\/board\.example\.com\/seat\/l-[A-Za-z0-9_-]+\/ap_0123456789abcdef\/allow\?d=/,
  );
});

test("over HTTP: a GET shows the command and answers nothing; the confirm answers once; reuse, a changed character, expiry and a changed target are refused by code; a cross-origin confirm is refused", async (t) => {
  const home = tempHome(t);
  const queue = new ApprovalQueue({ owner: () => ({ kind: "session", id: "links" }), timeoutMs: 60_000 });
  t.after(() => queue.close());
  const command = `echo "$(date)" >> ran.txt; echo ${"x".repeat(300)}`;
  const request = {
    sessionId: "s",
    toolCall: { toolCallId: "c", kind: "execute", title: "Run it", rawInput: { command } },
    options: [
      { optionId: "allow-once", name: "Yes", kind: "allow_once" },
      { optionId: "reject-once", name: "No", kind: "reject_once" },
    ],
  } as unknown as RequestPermissionRequest;
  const gate = createPermissionGate({ policy: parsePolicyFlags({}) });
  const decided = gate.decide(request, { approver: queue.approver(), timeoutMs: 60_000 });
  const answers: string[] = [];
  const board = await startBoard({
    approvals: {
      list: async () => queue.list(),
      answer: async (id, answer) => (
        answers.push(`${id}:${answer.decision}:${answer.by}`), queue.answer(id, parseAnswer(answer))
      ),
    },
    listing: { home: join(home, "none") },
    links: { home },
  });
  t.after(() => board.close());
  let pending = queue.list()[0];
  for (let i = 0; !pending && i < 200; i += 1) await new Promise((r) => setTimeout(r, 5)), (pending = queue.list()[0]);
  assert.ok(pending);
  const links = approvalLinks(home, pending);
  assert.ok(links);
  const origin = new URL(board.url).origin;
  const confirm = (url: string, headers: Record<string, string> = { origin, "sec-fetch-site": "same-origin" }) =>
    fetch(url, {
      method: "POST",
      redirect: "manual",
      headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });

  const shown = await fetch(links.approve_url);
  assert.equal(shown.status, 200);
  assert.equal(shown.headers.get("referrer-policy"), "no-referrer");
  const html = await shown.text();
  assert.ok(
    html.includes(`<pre id="target">echo &#34;$(date)&#34; &#62;&#62; ran.txt; echo ${"x".repeat(300)}</pre>`),
    "the whole command, exact",
  );
  assert.ok(
    !html.includes(board.token) && !html.includes(new URL(board.url).pathname.slice(1, -1)),
    "no token or board path on the page",
  );
  assert.equal(answers.length, 0, "a GET answers nothing");

  const cross = await confirm(links.approve_url, { origin: "http://evil.example", "sec-fetch-site": "cross-site" });
  assert.equal(cross.status, 403);
  const oneChar = links.approve_url.replace(/s=(.)/, (_, c: string) => `s=${c === "A" ? "B" : "A"}`);
  const tampered = await confirm(oneChar);
  assert.equal(tampered.status, 403);
  assert.match(await tampered.text(), /APPROVAL_LINK_INVALID/);
  const key = findLinkKey(home)!;
  const old = signLink(key, {
    id: pending.id,
    decision: "allow",
    digest: pending.digest,
    deadline: new Date(Date.now() - 1_000),
  });
  const expired = await confirm(
    `${origin}/${new URL(links.approve_url).pathname.split("/")[1]}/${pending.id}/allow?d=${old.digest}&e=${old.expires}&s=${old.signature}`,
  );
  assert.equal(expired.status, 410);
  assert.match(await expired.text(), /APPROVAL_LINK_EXPIRED/);
  const stale = signLink(key, { id: pending.id, decision: "allow", digest: "cd".repeat(32), deadline: later() });
  const changed = await confirm(
    `${origin}/${new URL(links.approve_url).pathname.split("/")[1]}/${pending.id}/allow?d=${stale.digest}&e=${stale.expires}&s=${stale.signature}`,
  );
  assert.equal(changed.status, 409);
  assert.match(await changed.text(), /APPROVAL_TARGET_CHANGED/);
  assert.deepEqual(
    answers,
    [`${pending.id}:allow:link`],
    "only the stale link reached the holder, which refused its digest",
  );
  assert.equal(queue.list().length, 1, "still held");
  answers.length = 0;

  // Three confirms of the one link at once (a double tap, a retry): exactly one answers.
  const racing = await Promise.all([
    confirm(links.approve_url),
    confirm(links.approve_url),
    confirm(links.approve_url),
  ]);
  assert.deepEqual(racing.map((r) => r.status).sort(), [200, 410, 410]);
  const first = racing.find((r) => r.status === 200)!;
  assert.match(await first.text(), /Approved/);
  assert.deepEqual((await decided).response, { outcome: { outcome: "selected", optionId: "allow-once" } });
  const again = await confirm(links.approve_url);
  assert.equal(again.status, 410);
  assert.match(await again.text(), /APPROVAL_LINK_USED/);
  const deny = await confirm(links.deny_url);
  assert.equal(deny.status, 409, "first answer wins: the deny link hears the approval was answered");
  assert.match(await deny.text(), /APPROVAL_ALREADY_ANSWERED|APPROVAL_NOT_FOUND/);
  assert.deepEqual(answers, [`${pending.id}:allow:link`, `${pending.id}:deny:link`]);
});
