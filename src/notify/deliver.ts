/*
 * Delivery: one event to one target — an HTTP POST with a short timeout, or a local program with the event as
 *   JSON on stdin — retried with back-off when the failure may pass.
 * Owns: the attempt (timeout, status check), which failures are retried (network, timeout, 408, 429, 5xx), the
 *   back-off schedule (RETRY_DELAYS_MS: the first retry within 20 s) and the outcome a notifier reports.
 * Does not own: which targets get which events, coalescing (notifier.ts), or the request's bytes (payloads.ts).
 * Invariant: delivery never throws and never outlives its AbortSignal; a program target runs without a shell,
 *   with a bounded time (at the end of which its whole process group is killed), and its output is discarded.
 */
import { spawn } from "node:child_process";
import type { NotifyTarget, NotifyEvent } from "../notify-config/index.js";
import { buildRequest } from "./payloads.js";

/** How long one attempt may take. */
export const ATTEMPT_TIMEOUT_MS = 5_000;
/** The waits before each retry: the first within 20 s of the failure, then longer. */
export const RETRY_DELAYS_MS: readonly number[] = [2_000, 10_000, 60_000];

/** How one attempt went. */
export type AttemptOutcome = { ok: true } | { ok: false; retryable: boolean; detail: string };

/** How a delivery ended after its attempts. */
export interface DeliveryOutcome {
  target: string;
  eventId: string;
  ok: boolean;
  attempts: number;
  detail?: string;
}

function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** One HTTP attempt. */
async function postOnce(
  target: Exclude<NotifyTarget, { type: "command" }>,
  event: NotifyEvent,
  signal: AbortSignal,
  fetchImpl: typeof fetch,
): Promise<AttemptOutcome> {
  const request = buildRequest(target, event);
  try {
    const response = await fetchImpl(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "error",
      signal: AbortSignal.any([signal, AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)]),
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return { ok: true };
    return { ok: false, retryable: retryableStatus(response.status), detail: `HTTP ${response.status}` };
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    return {
      ok: false,
      retryable: true,
      detail:
        name === "TimeoutError"
          ? `no answer within ${ATTEMPT_TIMEOUT_MS} ms`
          : name === "AbortError"
            ? "abandoned"
            : "connection failed",
    };
  }
}

/** Kills a program target and everything it started: it leads its own process group (spawned detached). */
function killGroup(child: ReturnType<typeof spawn>): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    child.kill("SIGKILL");
  }
}

/** One program attempt: the event as JSON on stdin, no shell, output discarded, its group killed at the timeout. */
function runOnce(
  target: Extract<NotifyTarget, { type: "command" }>,
  event: NotifyEvent,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    const [program, ...args] = target.command;
    let settled = false;
    const done = (outcome: AttemptOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    // Detached: its own process group, so a timeout or an abandoned run kills what it started too.
    const child = spawn(program as string, args, { stdio: ["pipe", "ignore", "ignore"], shell: false, detached: true });
    const timer = setTimeout(() => {
      killGroup(child);
      done({ ok: false, retryable: true, detail: `the program did not finish within ${ATTEMPT_TIMEOUT_MS} ms` });
    }, ATTEMPT_TIMEOUT_MS);
    const onAbort = (): void => {
      killGroup(child);
      done({ ok: false, retryable: false, detail: "abandoned" });
    };
    signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error: NodeJS.ErrnoException) =>
      done({ ok: false, retryable: false, detail: `the program could not start (${error.code ?? "error"})` }),
    );
    child.on("close", (code, sig) =>
      done(
        code === 0
          ? { ok: true }
          : { ok: false, retryable: true, detail: sig ? `the program died of ${sig}` : `the program exited ${code}` },
      ),
    );
    child.stdin.on("error", () => undefined);
    child.stdin.end(`${JSON.stringify(event)}\n`);
  });
}

/** One attempt at `target`. */
export function attemptDelivery(
  target: NotifyTarget,
  event: NotifyEvent,
  signal: AbortSignal,
  fetchImpl: typeof fetch = fetch,
): Promise<AttemptOutcome> {
  return target.type === "command" ? runOnce(target, event, signal) : postOnce(target, event, signal, fetchImpl);
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Delivers `event` to `target`, retrying per `delays` until it lands, fails for good, or `signal` aborts. */
export async function deliver(
  target: NotifyTarget,
  event: NotifyEvent,
  options: { signal: AbortSignal; delaysMs?: readonly number[]; fetch?: typeof fetch },
): Promise<DeliveryOutcome> {
  const delays = options.delaysMs ?? RETRY_DELAYS_MS;
  let attempts = 0;
  let last: AttemptOutcome = { ok: false, retryable: false, detail: "not attempted" };
  for (;;) {
    attempts += 1;
    last = await attemptDelivery(target, event, options.signal, options.fetch);
    if (last.ok) return { target: target.name, eventId: event.id, ok: true, attempts };
    const wait = delays[attempts - 1];
    if (!last.retryable || wait === undefined || options.signal.aborted) break;
    if (!(await sleep(wait, options.signal))) break;
  }
  return { target: target.name, eventId: event.id, ok: false, attempts, detail: last.ok ? undefined : last.detail };
}
