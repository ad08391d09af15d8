import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createSession } from "grok-seat";
import { sandboxConfigToml, startMockModel } from "grok-seat/testing";

// A home that outlives the run: the mock on a fixed port, grok's config written once into your directory.
const home = resolve(process.argv[2] ?? ".grok-seat-offline");
const grokHome = join(home, ".grok");
mkdirSync(grokHome, { recursive: true, mode: 0o700 });
const mock = await startMockModel({ port: 4747 });
writeFileSync(join(grokHome, "config.toml"), sandboxConfigToml(mock.baseUrl));

const session = await createSession({ cwd: process.cwd(), agentEnv: { HOME: home, GROK_HOME: grokHome } });
const turn = await session.prompt("say pong");
console.log(turn.text);
await session.dispose();
await mock.close();
// With the mock running again on port 4747, the CLI uses the same home:
console.log(`HOME=${home} GROK_HOME=${grokHome} npx seat run "say pong"`);
