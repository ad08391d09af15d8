// Child process for journal-crash.test: fences (and optionally dispatches) one delivery, says so, then waits to be killed.
import { openJournal } from "../../../src/journal/index.js";

const [path, step] = process.argv.slice(2) as [string, "fence" | "dispatch"];
const journal = openJournal(path);
journal.createSeat({
  seatId: "seat-crash",
  sessionId: "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee",
  socketPath: "/tmp/x/s",
  state: "active",
});
journal.fence({ seatId: "seat-crash", promptId: "crash-1", text: "brief written before the crash" });
if (step === "dispatch") journal.markDispatched("crash-1");
process.stdout.write(`${step}ed\n`);
setInterval(() => {}, 1000);
