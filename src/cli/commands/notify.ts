/*
 * `seat notify [list] [--json]` and `seat notify test NAME [--json]`: the notification targets the config file
 *   defines, and a sample event sent to one of them so a person can see it arrive (and a receiver check its
 *   signature) before a real run needs it.
 * Owns: showing targets (never a secret) and the sample. Does not own: parsing (notify-config/config.ts) or sending.
 */
import { SeatError } from "../../errors.js";
import { deliver, RETRY_DELAYS_MS } from "../../notify/index.js";
import { createNotifyEvent, NOTIFY_EVENTS, chooseTargets, type NotifyTarget } from "../../notify-config/index.js";
import { parseFlags } from "../args.js";
import { loadNotifyConfig } from "../config.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

function where(target: NotifyTarget): string {
  if (target.type === "command") return target.command.join(" ");
  const url = new URL(target.url);
  return `${url.protocol}//${url.host}${url.pathname}`;
}

export const notifyCommand: Command = {
  name: "notify",
  help: `Usage: seat notify [list] [--json]
       seat notify test NAME [--json]

Notifications reach a person who is not watching: an approval waiting, a turn done, failed, cancelled,
uncertain, a budget reached, a seat lost. Targets live in the config file's "notify" section (see seat config;
docs/notifications.md):

  {"notify": {"targets": {"phone": {"type": "ntfy", "url": "https://ntfy.sh/my-topic", "events": ["waiting"]},
                          "hook":  {"type": "webhook", "url": "https://example.com/hook", "secretEnv": "HOOK_SECRET"}},
              "default": ["phone"]}}

  list        each target: name, kind (type), where it posts (no secret), its events, whether it is a default
  test NAME   send NAME a sample "done" event now (retried like a real one, at most ${RETRY_DELAYS_MS.length} retries);
              exit 0 when it arrived, 1 when it did not
  --json      one object per target / the delivery outcome

Runs choose targets with seat run --notify NAME (repeatable; --notify none for none) or get the default.
Events: ${NOTIFY_EVENTS.join(", ")}.

Examples:
  seat notify list
  seat notify test hook
  seat run --notify hook "fix the failing test"`,
  async run(argv) {
    const args = parseFlags("notify", argv, { json: { type: "boolean" } });
    const [action = "list", name, ...extra] = args.positionals;
    const json = args.values.json === true;
    if (extra.length > 0)
      throw new SeatError("CLI_USAGE", `seat notify: unexpected ${extra.map((e) => JSON.stringify(e)).join(" ")}.`);
    const config = loadNotifyConfig();
    if (action === "list") {
      if (name !== undefined) throw new SeatError("CLI_USAGE", "seat notify list takes no name.");
      const targets = Object.values(config?.targets ?? {});
      for (const t of targets) {
        const row = {
          name: t.name,
          kind: t.type,
          where: where(t),
          events: [...t.events],
          default: config?.default.includes(t.name) === true,
        };
        if (json) writeJson({ type: "notify_target", ...row });
        else
          process.stdout.write(
            `${row.name.padEnd(12)} ${row.kind.padEnd(8)} ${row.where}  [${row.events.join(",")}]${row.default ? "  default" : ""}\n`,
          );
      }
      if (!json && targets.length === 0)
        process.stdout.write(
          'No notification targets: add a "notify" section to a config file (seat notify --help).\n',
        );
      return EXIT.ok;
    }
    if (action !== "test")
      throw new SeatError("CLI_USAGE", `seat notify: unknown action "${action}" (list or test NAME).`);
    if (name === undefined)
      throw new SeatError("CLI_USAGE", "seat notify test needs a target NAME (seat notify list shows them).");
    const [target] = chooseTargets(config, [name]);
    const event = createNotifyEvent({
      event: "done",
      subject: { kind: "test", id: "seat-notify-test" },
      text: `a test notification from seat notify test ${name}`,
    });
    const outcome = await deliver(target!, event, { signal: AbortSignal.timeout(90_000) });
    if (json)
      writeJson({
        type: "notify_test",
        target: name,
        ok: outcome.ok,
        attempts: outcome.attempts,
        id: event.id,
        ...(outcome.detail ? { detail: outcome.detail } : {}),
      });
    else
      process.stdout.write(
        outcome.ok
          ? `sent to ${name} (event ${event.id}, ${outcome.attempts} attempt${outcome.attempts === 1 ? "" : "s"})\n`
          : `not delivered to ${name} after ${outcome.attempts} attempts: ${outcome.detail} [NOTIFY_DELIVERY_FAILED]\n`,
      );
    return outcome.ok ? EXIT.ok : EXIT.turnFailed;
  },
};
