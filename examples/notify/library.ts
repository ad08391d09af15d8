import { chooseTargets, createNotifier, createSession, notifyFromEvents, parseNotifyConfig } from "grok-seat";

// A program target: it gets each event as JSON on stdin (here it just echoes it to stderr).
const config = parseNotifyConfig({ targets: { log: { type: "command", command: [process.execPath, "-e", "process.stdin.pipe(process.stderr)"] } } });
const notifier = createNotifier({ targets: chooseTargets(config, ["log"]), onOutcome: (o) => console.log(`notified ${o.target}: ${o.ok}`) });
const session = await createSession({
  cwd: process.cwd(),
  callbacks: { onEvent: notifyFromEvents(notifier, { subject: { kind: "session", id: "example" } }) },
});
const turn = await session.prompt("hello");
await session.dispose();
await notifier.close();                 // sends what is held, waits a bounded time for deliveries in flight
console.log(`turn ${turn.stopReason}`);
