/*
 * Seat test world: a temp HOME/GROK_HOME/project, a journal and a mux backend for hiring the fake grok TUI
 * (seat-fake-tui.ts) with hireSeat, and the teardown that kills every process a seat started.
 */
import { afterEach } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { openJournal, type Journal } from "../../../src/journal/index.js";
import { randomBytes } from "node:crypto";
import { TmuxBackend, type Backend } from "../../../src/mux/index.js";
import { hireSeat, type HireSeatOptions } from "../../../src/seat/index.js";
import { alive } from "../../support/processes.js";
import { need, type TestLike } from "../../support/requirements.js";

export const FAKE_TUI = join(process.cwd(), "dist", "test", "integration", "seat", "seat-fake-tui.js");

/** One test's private world. */
export interface World {
  root: string;
  home: string;
  grokHome: string;
  project: string;
  journal: Journal;
  backend: Backend;
  cleanup: Array<() => unknown>;
}

/** A fresh world on `backend`. */
export function makeWorld(backend: Backend): World {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-it-")));
  const home = join(root, "h");
  const grokHome = join(home, ".grok");
  const project = join(root, "p");
  for (const d of [home, grokHome, project]) mkdirSync(d, { recursive: true, mode: 0o700 });
  return { root, home, grokHome, project, journal: openJournal(join(root, "seats.db")), backend, cleanup: [] };
}

/**
 * A fresh world on its own private tmux server (killed by its cleanup), or null when tmux is missing: `need`
 * then fails the test in required mode or skips it.
 */
export function tmuxWorld(t: TestLike, tmuxOk: boolean): { w: World; tmux: TmuxBackend } | null {
  if (!need(t, tmuxOk ? false : "tmux (not found on PATH)")) return null;
  const tmux = new TmuxBackend({ socketName: `gs-it-${randomBytes(4).toString("hex")}` });
  const w = makeWorld(tmux);
  w.cleanup.push(() => tmux.killServer());
  return { w, tmux };
}

/**
 * For a describe block whose tests each need a fresh tmux world: registers an afterEach that kills the world the
 * last test made (killEverything), and returns `world(t)`, which makes one and hands it to `use`, or returns false
 * when tmux is missing (see `tmuxWorld`). `tmuxOk` is read when a test asks, after the file's `before` hook ran.
 */
export function tmuxWorldPerTest(
  tmuxOk: () => boolean,
  use: (made: { w: World; tmux: TmuxBackend }) => void,
): (t: TestLike) => boolean {
  let current: World | undefined;
  afterEach(async () => {
    const w = current;
    current = undefined;
    if (w) await killEverything(w);
  });
  return (t) => {
    const made = tmuxWorld(t, tmuxOk());
    if (!made) return false;
    current = made.w;
    use(made);
    return true;
  };
}

/** hireSeat options for the fake TUI shaped by `config`. */
export function options(
  w: World,
  config: Record<string, unknown> = {},
  extra: Partial<HireSeatOptions> = {},
): HireSeatOptions {
  return {
    grokBinary: process.execPath,
    binaryArgs: [FAKE_TUI, "--gs-config", JSON.stringify(config)],
    cwd: w.project,
    mux: w.backend.name,
    backend: w.backend,
    journal: w.journal,
    env: { HOME: w.home, GROK_HOME: w.grokHome, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    versionFloor: "1.0.41",
    readyTimeoutMs: 8000,
    requestTimeoutMs: 5000,
    ...extra,
  };
}

/** Kills every TUI and leader the world's journal names, runs the cleanups and removes the world. */
export async function killEverything(w: World): Promise<void> {
  for (const seat of w.journal.listSeats({ includeReleased: true })) {
    for (const pid of [seat.tuiPid, seat.leaderPid])
      if (pid && alive(pid))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    const lock = `${seat.socketPath}.lock`;
    if (existsSync(lock)) {
      const pid = Number(readFileSync(lock, "utf8"));
      if (pid && alive(pid))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    }
    rmSync(join(seat.socketPath, ".."), { recursive: true, force: true });
  }
  for (const fn of w.cleanup.reverse()) await fn();
  w.journal.close();
  rmSync(w.root, { recursive: true, force: true });
}

/** Hires expecting a refusal; returns its code and message (fails the test if the hire succeeds). */
export async function refusal(
  w: World,
  config: Record<string, unknown>,
  extra: Partial<HireSeatOptions> = {},
): Promise<{ code: string; message: string }> {
  try {
    const seat = await hireSeat(options(w, config, extra));
    await seat.release({ closePane: true });
  } catch (error) {
    assert.ok(isSeatError(error), String(error));
    return { code: error.code, message: error.message };
  }
  assert.fail("the hire was not refused");
}
