import { test } from "node:test";
import assert from "node:assert/strict";
import type { PendingApproval } from "../acp/index.js";
import type { NotifyEvent } from "../notify-config/index.js";
import { notifyFromEvents } from "./from-events.js";
import type { Notifier } from "./notifier.js";

const approval: PendingApproval = {
  id: "ap_0123456789abcdef",
  category: "execute",
  title: "Run it",
  target: { command: "echo hi" },
  digest: "ab".repeat(32),
  owner: { kind: "session", id: "s1" },
  askedAt: new Date().toISOString(),
  deadline: new Date(Date.now() + 60_000).toISOString(),
};

function capture(): { notifier: Notifier; sent: NotifyEvent[] } {
  const sent: NotifyEvent[] = [];
  return { sent, notifier: { notify: (event) => void sent.push(event), close: async () => [] } };
}

test("a waiting approval without a board names the commands that answer it; with a board it carries the links instead", () => {
  const none = capture();
  notifyFromEvents(none.notifier, { subject: { kind: "run", id: "r1" }, linkFor: () => undefined })({
    type: "approval_asked",
    approval,
  });
  assert.equal(none.sent[0]?.approval?.approve_url, undefined);
  assert.match(none.sent[0]!.text, /seat approve ap_0123456789abcdef --digest a[b]{1}(ab){31}/);
  assert.match(none.sent[0]!.text, /seat deny ap_0123456789abcdef/);
  const linked = capture();
  const links = {
    approve_url: "http://127.0.0.1:1/l-x/ap_0123456789abcdef/allow?d=1",
    deny_url: "http://127.0.0.1:1/l-x/ap_0123456789abcdef/deny?d=1",
  };
  notifyFromEvents(linked.notifier, { subject: { kind: "run", id: "r1" }, linkFor: () => links })({
    type: "approval_asked",
    approval,
  });
  assert.equal(linked.sent[0]?.approval?.approve_url, links.approve_url);
  assert.equal(linked.sent[0]?.approval?.deny_url, links.deny_url);
  assert.doesNotMatch(linked.sent[0]!.text, /seat approve/);
});
