/*
 * A real zombie for tests: a process that has exited and that its parent never reaps — what a dead holder looks
 * like under a pid 1 that does not reap (a container without an init).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readProcStat } from "../../src/grok/index.js";

/** A zombie pid and its start ticks, and a function that ends its parent (the zombie goes with it). */
export interface Zombie {
  pid: number;
  startTicks: string;
  end(): void;
}

/**
 * Starts `sh` that backgrounds a `sleep`, prints its pid and becomes `sleep 600`, which never waits for children;
 * once the exec is done the background sleep is killed, and it stays a zombie until its parent is ended.
 */
export async function makeZombie(): Promise<Zombie> {
  const parent = spawn("/bin/sh", ["-c", "sleep 60 & echo $!; exec sleep 600"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const end = () => {
    parent.kill("SIGKILL");
  };
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
      parent.once("error", reject);
    });
    const deadline = Date.now() + 5_000;
    const wait = async (what: string, done: () => boolean) => {
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`makeZombie: ${what} within 5 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    // The shell has become sleep (it no longer reaps) only once its command line reads `sleep 600`.
    await wait("the shell did not exec sleep", () => {
      try {
        const argv = readFileSync(`/proc/${parent.pid}/cmdline`, "utf8").split("\u0000");
        return argv[0] === "sleep" && argv[1] === "600";
      } catch {
        return false;
      }
    });
    process.kill(pid, "SIGKILL");
    let stat: ReturnType<typeof readProcStat>;
    await wait(`pid ${pid} did not become a zombie`, () => (stat = readProcStat(pid))?.state === "Z");
    return { pid, startTicks: stat!.startTicks, end };
  } catch (error) {
    end();
    throw error;
  }
}
