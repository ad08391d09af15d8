/*
 * Fleet budget: one spend limit per queue and period (tokens or USD per hour or day), shared by every worker of
 *   the queue through an atomic reservation in Redis.
 * Owns: the `--budget` grammar, the budget key per queue, unit and window, and the reserve / settle scripts.
 * Does not own: running jobs (run-job.ts) or the per-turn check (usage/).
 * Invariant: a job reserves its own turn budget before it is dispatched, in one Lua script that reads and adds
 *   together, so two workers can never both take the last of the budget; a job whose reservation does not fit is
 *   never dispatched (BUDGET_EXCEEDED). After its turn the reservation is settled to what the agent reported
 *   (unknown usage keeps the whole reservation spent). Each reservation has its own mark, so a reserve or settle
 *   the Redis client re-sends after a lost reply counts once.
 * Spec: docs/spend.md#fleet-budgets.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { SeatError } from "../errors.js";
import type { TurnBudget } from "../metering/index.js";

/** A fleet budget: at most `limit` tokens or USD per hour or day (UTC windows). */
export interface FleetBudget {
  limit: number;
  unit: "tokens" | "usd";
  period: "hour" | "day";
}

const PERIOD_MS = { hour: 3_600_000, day: 86_400_000 } as const;

/** Reads `--budget` (`100000tokens/hour`, `5usd/day`); throws FLEET_BUDGET_INVALID naming the value. */
export function parseFleetBudget(raw: string): FleetBudget {
  const match = /^(\d+(?:\.\d+)?)(tokens|usd)\/(hour|day)$/i.exec(raw.trim());
  const limit = match ? Number(match[1]) : Number.NaN;
  if (!match || !(limit > 0) || (match[2]!.toLowerCase() === "tokens" && !Number.isInteger(limit))) {
    throw new SeatError(
      "FLEET_BUDGET_INVALID",
      `A fleet budget (--budget) takes <N>tokens/<hour|day> or <USD>usd/<hour|day> with N above 0 (e.g. 200000tokens/hour, 5usd/day), got "${raw}".`,
      { context: { value: raw } },
    );
  }
  return {
    limit,
    unit: match[2]!.toLowerCase() as FleetBudget["unit"],
    period: match[3]!.toLowerCase() as FleetBudget["period"],
  };
}

/** The Redis key of `queue`'s budget window that holds `atMs`. */
export function budgetKey(queue: string, budget: FleetBudget, atMs: number): string {
  const window = Math.floor(atMs / PERIOD_MS[budget.period]);
  return `grok-seat:budget:{${queue}}:${budget.unit}:${budget.period}:${window}`;
}

// KEYS[1] budget window, KEYS[2] this reservation's mark. ARGV: limit, amount, ttl seconds. Returns {1|0, spent
// after (or now)} as strings (Lua numbers would be truncated to integers in the reply). A reservation already
// marked (the same call re-sent by the client after a lost reply) is not added twice.
const RESERVE = `
if redis.call('EXISTS', KEYS[2]) == 1 then return {1, redis.call('GET', KEYS[1]) or '0'} end
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
local amount = tonumber(ARGV[2])
if spent + amount > tonumber(ARGV[1]) then return {0, tostring(spent)} end
local after = redis.call('INCRBYFLOAT', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
redis.call('SET', KEYS[2], 'reserved', 'EX', tonumber(ARGV[3]))
return {1, after}
`;

// KEYS[1] budget window, KEYS[2] the reservation's mark. ARGV: the correction (used - reserved), ttl seconds.
// Settles once: a settle re-sent after a lost reply changes nothing.
const SETTLE = `
if redis.call('GET', KEYS[2]) == 'settled' then return 0 end
redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], 'settled', 'EX', tonumber(ARGV[2]))
return 1
`;

/** The amount a job reserves under `budget`: its own turn limit in the budget's unit, or undefined (unmetered). */
export function reservationOf(budget: FleetBudget, turn: TurnBudget | undefined): number | undefined {
  return budget.unit === "tokens" ? turn?.maxTokens : turn?.maxCostUsd;
}

/** A reservation that went through: settle it once the turn's usage is known. */
export interface Reservation {
  key: string;
  amount: number;
  /** The reservation's own mark (one reserve, one settle, however often either is sent). */
  mark: string;
  ttlSeconds: number;
}

/**
 * Reserves `amount` of `queue`'s budget for the window holding now. Resolves the reservation, or the spend that
 * left no room (nothing reserved).
 */
export async function reserveBudget(
  redis: Redis,
  queue: string,
  budget: FleetBudget,
  amount: number,
  nowMs = Date.now(),
): Promise<{ ok: true; reservation: Reservation } | { ok: false; spent: number }> {
  const key = budgetKey(queue, budget, nowMs);
  const mark = `${key}:r:${randomUUID()}`;
  const ttlSeconds = Math.ceil((2 * PERIOD_MS[budget.period]) / 1000);
  const [ok, spent] = (await redis.eval(
    RESERVE,
    2,
    key,
    mark,
    String(budget.limit),
    String(amount),
    String(ttlSeconds),
  )) as [number, string];
  return ok === 1 ? { ok: true, reservation: { key, amount, mark, ttlSeconds } } : { ok: false, spent: Number(spent) };
}

/** Settles a reservation to what the turn used (`used` undefined: unknown, the reservation stays spent). */
export async function settleBudget(redis: Redis, reservation: Reservation, used: number | undefined): Promise<void> {
  if (used === undefined || used === reservation.amount) return;
  await redis.eval(
    SETTLE,
    2,
    reservation.key,
    reservation.mark,
    String(used - reservation.amount),
    String(reservation.ttlSeconds),
  );
}
