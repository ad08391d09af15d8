/*
 * P10's answering process: another process of the same user that watches for held approvals and allows each
 *   one as soon as it is listed — `seat approvals --watch` and `seat approve ID` without the person and
 *   without a node start per answer.
 * Owns: the poll loop and its log. Usage: node dist/bench/approval-answerer.js --count N --poll-ms MS [--redis URL]
 *   Writes one line per approval to stdout: {"id","seenAt","answeredAt"} (epoch ms), then exits after N answers.
 * Method: listApprovals() (this user's control sockets, or Redis with --redis) every --poll-ms; each new id is
 *   answered with answerApproval(id, allow) at once — the same calls `seat approvals` and `seat approve` make.
 */
import { performance } from "node:perf_hooks";
import { answerApproval, listApprovals } from "../src/supervision/index.js";

const now = () => performance.timeOrigin + performance.now();

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const count = Number(flag("count") ?? "1");
  const pollMs = Number(flag("poll-ms") ?? "5");
  const redis = flag("redis");
  const options = redis ? { redis } : {};
  const answered = new Set<string>();
  while (answered.size < count) {
    for (const approval of await listApprovals(options)) {
      if (answered.has(approval.id)) continue;
      const seenAt = now();
      answered.add(approval.id);
      await answerApproval(approval.id, { decision: "allow", by: "p10" }, options);
      process.stdout.write(
        `${JSON.stringify({ id: approval.id, askedAt: approval.askedAt, seenAt, answeredAt: now() })}\n`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`approval-answerer: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
