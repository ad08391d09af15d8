/*
 * `seat models`: the model ids grok offers, under provider `grok-cli`.
 */
import { listGrokModels, resolveGrokBinary } from "../../grok/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const modelsCommand: Command = {
  name: "models",
  help: `Usage: seat models [--grok PATH] [--json]

Runs \`grok models\` and parses it conservatively; an unparsable answer gives an empty list and a reason.

Examples:
  seat models
  seat models --json | jq -r '.models[]'`,
  async run(argv) {
    const args = parseFlags("models", argv, { grok: { type: "string" }, json: { type: "boolean" } });
    const explicit = stringFlag(args, "grok");
    const binary = await resolveGrokBinary(explicit ? { explicitPath: explicit } : {});
    const models = await listGrokModels({ binary: binary.path });
    if (args.values.json) {
      writeJson({
        type: "models",
        auth: models.auth,
        defaultModel: models.defaultModel ?? null,
        models: models.providerModelIds,
        ...(models.reason ? { reason: models.reason } : {}),
      });
    } else {
      const lines = models.models.map((m) => `grok-cli/${m.id}${m.isDefault ? " (default)" : ""}`);
      if (lines.length === 0) lines.push(`(no models: ${models.reason ?? "empty list"})`);
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    return models.models.length > 0 ? EXIT.ok : EXIT.grokUnavailable;
  },
};
