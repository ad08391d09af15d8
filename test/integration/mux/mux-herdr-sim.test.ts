// The Herdr simulator keeps Herdr's wire contract (herdr-api.md §9), checked over its real socket.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createConnection } from "node:net";
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HerdrClient, checkHerdrAgent, isHerdrError } from "../../../src/mux/index.js";
import { herdrNumeral, startHerdrSim, type HerdrSim, type HerdrSimOptions } from "../../fakes/herdr-sim.js";

const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

async function withSim(
  options: Partial<HerdrSimOptions>,
  body: (client: HerdrClient, dir: string, sim: HerdrSim) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-sim-"));
  const sim = await startHerdrSim({ socketPath: join(dir, "herdr.sock"), shell: ["/bin/sh"], ...options });
  try {
    await body(new HerdrClient(sim.socketPath), dir, sim);
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Send raw bytes on one connection and collect everything until the server closes it. */
function raw(socketPath: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath, () => socket.write(text));
    let out = "";
    socket.on("data", (chunk) => {
      out += chunk.toString("utf8");
    });
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
}

/** A script named `grok` (so Herdr's process detection recognises it) that prints and sleeps. */
function fakeGrok(dir: string): string {
  const path = join(dir, "grok");
  writeFileSync(path, "#!/bin/sh\necho fake grok up\nexec sleep 30\n");
  chmodSync(path, 0o755);
  return path;
}

function hasNull(value: unknown): boolean {
  if (value === null) return true;
  return typeof value === "object" && Object.values(value as object).some(hasNull);
}

test("numbers ids in bijective base-32 over Herdr's alphabet", () => {
  assert.deepEqual([1, 9, 10, 31, 32, 33, 64, 65].map(herdrNumeral), ["1", "9", "A", "Z", "0", "11", "10", "21"]);
});

test('serves a 0600 socket, answers one line and closes, and rejects bad requests with id ""', async () => {
  await withSim({}, async (_client, _dir, sim) => {
    assert.equal(statSync(sim.socketPath).mode & 0o777, 0o600);
    const pong = await raw(
      sim.socketPath,
      `${JSON.stringify({ id: "a", method: "ping", params: { extra: 1 } })}\n${JSON.stringify({ id: "b", method: "ping", params: {} })}\n`,
    );
    assert.equal(pong.trim().split("\n").length, 1, "a second line on the same connection is not answered");
    assert.equal(JSON.parse(pong).id, "a");
    for (const bad of [
      "{not json\n",
      `${JSON.stringify({ id: "c", method: "no.such", params: {} })}\n`,
      `${JSON.stringify({ id: "d", method: "ping" })}\n`,
      `${JSON.stringify({ id: "e", method: "pane.get", params: {} })}\n`,
    ]) {
      const reply = JSON.parse(await raw(sim.socketPath, bad));
      assert.equal(reply.id, "");
      assert.equal(reply.error.code, "invalid_request");
    }
  });
});

test("emulates ping of 0.8.2 (protocol 20) and 0.9.x (protocol 22)", async () => {
  await withSim({}, async (client) => {
    assert.deepEqual([(await client.ping()).version, (await client.ping()).protocol], ["0.8.2", 20]);
  });
  await withSim({ version: "0.9.0" }, async (client) => {
    assert.equal((await client.ping()).protocol, 22);
  });
});

test("creates w1:t1/w1:p1 with a shell, and layout.apply spawns argv without a shell and returns no pid", async () => {
  await withSim({}, async (client) => {
    const created = await client.createWorkspace({ cwd: tmpdir(), label: "seat" });
    assert.deepEqual(
      [created.workspace.workspace_id, created.tab.tab_id, created.root_pane.pane_id],
      ["w1", "w1:t1", "w1:p1"],
    );
    assert.equal(hasNull(created), false);
    const literal = "$HOME;echo injected";
    const argv = [
      process.execPath,
      "-e",
      "console.log(JSON.stringify(process.argv.slice(1))); setTimeout(() => {}, 30000)",
      literal,
    ];
    const layout = await client.applyLayout({
      tab_id: created.tab.tab_id,
      root: { type: "pane", label: "grok", cwd: tmpdir(), command: argv, env: { SEAT_LAUNCH_ID: "L1" } },
    });
    assert.equal(layout.tab_id, "w1:t2");
    assert.deepEqual(layout.root, { type: "pane", pane_id: "w1:p2", label: "grok", cwd: tmpdir(), command: argv });
    assert.doesNotMatch(JSON.stringify(layout), /pid|SEAT_LAUNCH_ID/);
    await assert.rejects(
      client.getPane("w1:p1"),
      (e) => isHerdrError(e, "pane_not_found"),
      "the replaced shell tab is closed",
    );
    const info = await client.getProcessInfo("w1:p2");
    const cmdline = readFileSync(`/proc/${info.shell_pid}/cmdline`, "utf8").split("\0");
    assert.equal(cmdline.at(-2), literal, "the argument reached the program verbatim");
    const environ = readFileSync(`/proc/${info.shell_pid}/environ`, "utf8").split("\0");
    for (const entry of ["SEAT_LAUNCH_ID=L1", "HERDR_ENV=1", "HERDR_PANE_ID=w1:p2", "TERM=xterm-256color"])
      assert.ok(environ.includes(entry), entry);
    let text = "";
    for (let i = 0; i < 100 && !text.includes(literal); i++) {
      text = (await client.readPane("w1:p2")).text;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(text.includes(JSON.stringify([literal])), text);
    const pane = await client.getPane("w1:p2");
    assert.equal(pane.agent, undefined);
    assert.equal(pane.agent_session, undefined);
    assert.equal(hasNull(pane), false);
  });
});

test("emits pane_exited then pane_closed when the argv program exits, after which the pane is gone", async () => {
  await withSim({}, async (client) => {
    const created = await client.createWorkspace({ cwd: tmpdir() });
    const stream = await client.subscribe([
      { type: "pane.exited" },
      { type: "pane.closed" },
      { type: "workspace.closed" },
    ]);
    const layout = await client.applyLayout({
      tab_id: created.tab.tab_id,
      root: { type: "pane", cwd: tmpdir(), command: ["sh", "-c", "read line; exit 3"] },
    });
    const paneId = (layout.root as { pane_id: string }).pane_id;
    const info = await client.getProcessInfo(paneId);
    process.kill(info.shell_pid!, "SIGTERM");
    const seen: string[] = [];
    for await (const event of stream) {
      if ((event.data as { pane_id?: string }).pane_id === "w1:p1") continue; // the replaced shell pane
      seen.push(event.event);
      assert.equal((event.data as { type?: string }).type, event.event, "lifecycle events are tagged with data.type");
      if (event.event === "workspace_closed") break;
    }
    stream.close();
    assert.deepEqual(seen, ["pane_exited", "pane_closed", "workspace_closed"]);
    await assert.rejects(client.getPane(paneId), (e) => isHerdrError(e, "pane_not_found"));
  });
});

test("produces the absent, agreeing and contradictory agent cases", async () => {
  await withSim({}, async (client, dir) => {
    const launch = async (argv: string[]): Promise<string> => {
      const created = await client.createWorkspace({ cwd: dir });
      const layout = await client.applyLayout({
        tab_id: created.tab.tab_id,
        root: { type: "pane", cwd: dir, command: argv },
      });
      return (layout.root as { pane_id: string }).pane_id;
    };
    const grok = { agent: "grok", sessionId: SID };
    const report = { source: "herdr:grok", agent: "grok", state: "working" as const, agent_session_id: SID };

    const wrapped = await launch(["sleep", "30"]); // not recognised as grok
    await client.reportAgent(wrapped, report);
    const absent = await client.getPane(wrapped);
    assert.equal(absent.agent, undefined);
    assert.equal(absent.agent_session?.agent, "grok");
    assert.equal(absent.agent_status, "unknown", "a reserved native source's state is ignored");
    assert.equal(checkHerdrAgent(absent, grok).verdict, "match");

    const named = await launch([fakeGrok(dir)]);
    await client.reportAgent(named, report);
    const agreeing = await client.getPane(named);
    assert.equal(agreeing.agent, "grok");
    assert.equal(checkHerdrAgent(agreeing, grok).verdict, "match");

    await client.reportAgentSession(named, { source: "herdr:opencode", agent: "opencode", agent_session_id: "ses_1" });
    const contradictory = await client.getPane(named);
    assert.deepEqual([contradictory.agent, contradictory.agent_session?.agent], ["grok", "opencode"]);
    assert.equal(checkHerdrAgent(contradictory, grok).verdict, "mismatch");
  });
});

test("answers ok but silently drops stale, equal and unsequenced-after-sequenced reports", async () => {
  await withSim({}, async (client, dir) => {
    const created = await client.createWorkspace({ cwd: dir });
    const pane = created.root_pane.pane_id;
    const send = (seq: number | undefined, id: string) =>
      client.reportAgentSession(pane, {
        source: "herdr:grok",
        agent: "grok",
        agent_session_id: id,
        ...(seq === undefined ? {} : { seq }),
      });
    const current = async () => (await client.getPane(pane)).agent_session?.value;
    await send(5, "A");
    await send(3, "B");
    await send(5, "C");
    await send(undefined, "D");
    assert.equal(await current(), "A");
    await send(6, "E");
    assert.equal(await current(), "E");
    await client.reportAgentSession(pane, { source: "herdr:grok", agent: "opencode", seq: 7, agent_session_id: "F" });
    assert.equal(await current(), "E", "a session ref is stored only for the official (herdr:<agent>, <agent>) pair");
  });
});

test("gives a hook source authority: top-level agent and status follow it, and idle after working is done", async () => {
  await withSim({}, async (client, dir) => {
    const pane = (await client.createWorkspace({ cwd: dir })).root_pane.pane_id;
    const stream = await client.subscribe([{ type: "pane.agent_status_changed", pane_id: pane }]);
    await client.reportAgent(pane, {
      source: "herdr:opencode",
      agent: "opencode",
      state: "working",
      agent_session_id: "ses_9",
    });
    for await (const event of stream) {
      assert.equal(event.event, "pane.agent_status_changed", "filtered kinds keep their dotted name");
      assert.deepEqual(
        [event.data.type, event.data.pane_id, event.data.agent_status],
        [undefined, pane, "working"],
        "and are not tagged",
      );
      break;
    }
    stream.close();
    let info = await client.getPane(pane);
    assert.deepEqual([info.agent, info.agent_status, info.agent_session?.value], ["opencode", "working", "ses_9"]);
    assert.equal(checkHerdrAgent(info, { agent: "opencode", sessionId: "ses_9" }).verdict, "match");
    assert.equal(checkHerdrAgent(info, { agent: "grok", sessionId: "ses_9" }).verdict, "mismatch");
    await client.reportAgent(pane, { source: "herdr:opencode", agent: "opencode", state: "idle" });
    info = await client.getPane(pane);
    assert.equal(info.agent_status, "done");
  });
});

test("runs as a CLI on a socket given by --socket", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-cli-"));
  const socketPath = join(dir, "herdr.sock");
  const script = fileURLToPath(new URL("../../fakes/herdr-sim.js", import.meta.url));
  const child = spawn(process.execPath, [script, "--socket", socketPath, "--version", "0.9.0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (chunk) => {
        err += chunk;
        if (err.includes("listening")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`herdr-sim exited ${code}: ${err}`)));
    });
    assert.equal((await new HerdrClient(socketPath).ping()).protocol, 22);
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
});
