import { connectFleet, parsePolicyFlags, startWorker, type HostTool } from "grok-seat";

const url = process.env.GROK_SEAT_REDIS_URL ?? "redis://127.0.0.1:6379";
const tools: HostTool[] = [{
  name: "lookup_ticket",
  description: "Fetch a ticket by id",
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
  execute: async ({ id }) => `ticket ${id}: open`,
}];
const worker = await startWorker({ redis: url, concurrency: 2, tools });   // on each host
const fleet = await connectFleet(url);                                        // anywhere
const policy = parsePolicyFlags({ allow: ["read", "mcp"] });                  // travels with the job
const job = await fleet.enqueue({ prompt: "What is ticket 42 about?", policy, cwd: process.cwd() });
let from: string | undefined;                                                 // resumable: pass the last cursor
for await (const { cursor, event } of job.events(from === undefined ? {} : { from })) {
  from = cursor;
  if (event.type === "job") console.log(`job ${event.status}`);
  if (event.type === "text") process.stdout.write(event.text);
}
const { status, text, code } = await job.result();    // completed | failed | cancelled | uncertain
console.log(`\n${status} ${code ?? ""} (${text.length} chars)`);
// job.cancel() stops a waiting or running job.
await fleet.close();
await worker.close();
