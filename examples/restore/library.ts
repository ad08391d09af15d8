import { listLost, restoreLost } from "grok-seat";

for (const item of await listLost()) {
  const done = await restoreLost(item.id);
  console.log(`${done.kind} ${done.id} restored; in flight and never re-sent: ${done.uncertain.join(", ") || "none"}`);
}
console.log("nothing else is lost");
