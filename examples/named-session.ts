import { openSession } from "grok-seat";

const { session, resumed } = await openSession({ name: "work", cwd: process.cwd() }); // rejects SESSION_BUSY / SESSION_NOT_RESUMABLE
const turn = await session.prompt(resumed ? "continue where we left off" : "let us start"); // recorded in the journal
console.log(resumed ? "resumed" : "new", turn.stopReason, turn.text);
await session.dispose();                                         // frees the name for the next run
