/*
 * `seat sessions list|show|history|close|rm`: the named headless sessions recorded in the journal.
 * Owns: the sub-verbs' flags and how their results print (text or one JSON object per line).
 * Does not own: what the operations do (sessions/).
 */
import { SeatError } from "../../errors.js";
import { closeNamed, lookup, openStore, removeNamed, summarize, type SessionSummary } from "../../sessions/index.js";
import type { SessionStore } from "../../session-store/index.js";
import { seatHome } from "../../home/index.js";
import { emptyTotals, queryUsage } from "../../usage/index.js";
import { loadPrices } from "../../metering/index.js";
import { usageLine } from "../usage-line.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

const SUBS = ["list", "show", "history", "close", "rm"] as const;

function line(s: SessionSummary): string {
  const named = s.scope === "global" ? "global" : s.scope.replace(/^cwd:/, "");
  // A session that works in a seat worktree is named from the directory it was started in.
  const where = s.cwd === named ? named : `${named} (works in ${s.cwd})`;
  const running = s.running ? `running (pid ${s.running.pid} since ${s.running.since})` : s.state;
  return `${s.name.padEnd(16)} ${running.padEnd(10)} ${String(s.turns).padStart(3)} turns  last used ${s.lastUsedAt}  ${where}`;
}

export const sessionsCommand: Command = {
  name: "sessions",
  help: `Usage: seat sessions <list|show NAME|history NAME|close NAME|rm NAME> [flags]

  list                 every named session: name, state or running holder, turns, last use, directory
  show NAME            the session's record, turn count, its ledger totals (as seat usage counts them; with
                       --prices FILE a cost from tokens) and last stop reason
  history NAME         the recorded prompts and answers, oldest first (--limit N: only the newest N)
  close NAME           session/close on the agent (where advertised); the record stays, marked closed
  rm NAME              delete the record and its history (grok's own session files are left alone)
  --global             the name is global, not this directory's
  --cwd DIR            the directory whose names to use (default: current)
  --json               one JSON object per line

Examples:
  seat sessions list
  seat sessions history review --limit 3
  seat sessions rm review`,
  async run(argv) {
    const args = parseFlags("sessions", argv, {
      json: { type: "boolean" },
      global: { type: "boolean" },
      cwd: { type: "string" },
      limit: { type: "string" },
      grok: { type: "string" },
      prices: { type: "string" },
    });
    const [sub, name, ...extra] = args.positionals;
    if (!SUBS.includes(sub as (typeof SUBS)[number]))
      throw new SeatError("CLI_USAGE", `seat sessions: give one of ${SUBS.join(", ")}. See \`seat sessions --help\`.`);
    if (sub !== "list" && (name === undefined || extra.length > 0))
      throw new SeatError("CLI_USAGE", `seat sessions ${sub}: give exactly one session name.`);
    const limitRaw = stringFlag(args, "limit");
    if (limitRaw !== undefined && !/^[1-9]\d*$/.test(limitRaw))
      throw new SeatError("CLI_USAGE", `seat sessions: --limit takes a positive whole number, got "${limitRaw}".`);
    const json = args.values.json === true;
    const prices =
      sub !== "show" || stringFlag(args, "prices") === undefined ? undefined : loadPrices(stringFlag(args, "prices")!);
    const where = { cwd: stringFlag(args, "cwd") ?? process.cwd(), global: args.values.global === true };
    const store: SessionStore = openStore(seatHome());
    try {
      if (sub === "list") {
        const all = store.list().map((r) => summarize(store, r));
        if (json) for (const s of all) writeJson({ type: "session", ...s });
        else
          process.stdout.write(
            all.length === 0
              ? 'no named sessions (create one with seat run -s NAME "…")\n'
              : `${all.map(line).join("\n")}\n`,
          );
        return EXIT.ok;
      }
      const record = lookup(store, name!, where);
      if (sub === "show") {
        const s = summarize(store, record);
        // The ledger's totals (per model, cost with its source, unknown kept unknown), as `seat usage` counts them.
        const ledger =
          queryUsage({ journalFile: store.path, sessionRow: record.row, ...(prices ? { prices } : {}) })[0] ??
          emptyTotals("all");
        if (json) writeJson({ type: "session", ...s, ledger });
        else
          process.stdout.write(
            `${line(s)}\n  agent ${s.agent}, agent session ${s.agentSessionId ?? "none yet"}, model ${s.model ?? "grok's default"}\n  usage: ${usageLine(ledger)}\n  last stop reason: ${s.lastStopReason ?? "none"}${s.interruptedTurns ? `, ${s.interruptedTurns} interrupted` : ""}\n`,
          );
      } else if (sub === "history") {
        const turns = store.turns(record.row, limitRaw ? Number(limitRaw) : undefined);
        if (json) for (const t of turns) writeJson({ type: "turn", name: record.name, ...t });
        else
          for (const t of turns)
            process.stdout.write(
              `── ${t.startedAt} ${t.promptId} (${t.state}${t.stopReason ? `, ${t.stopReason}` : ""})\n> ${t.prompt}\n${t.text}\n`,
            );
      } else if (sub === "close") {
        const grok = stringFlag(args, "grok");
        const outcome = await closeNamed(store, record, grok ? { grokCliBinaryPath: grok } : {});
        if (json) writeJson({ type: "closed", name: record.name, ...outcome });
        else
          process.stdout.write(
            `${record.name}: ${outcome.closed ? `closed by the agent (${outcome.outcome})` : `marked closed; ${outcome.outcome}`}\n`,
          );
      } else {
        await removeNamed(store, record);
        if (json) writeJson({ type: "removed", name: record.name });
        else process.stdout.write(`${record.name}: removed\n`);
      }
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
