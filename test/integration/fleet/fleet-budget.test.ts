/*
 * The fleet budget's reservation on a real redis-server: the grammar of --budget, and that concurrent workers
 * (separate connections) can never together reserve more than the limit.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { budgetKey, parseFleetBudget, reserveBudget, settleBudget } from "../../../src/fleet/budget.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { isSeatError } from "../../../src/errors.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig } from "../../support/fleet-rig.js";

test("--budget reads <N>tokens/<hour|day> and <USD>usd/<hour|day>; anything else is a usage error naming the value", () => {
  assert.deepEqual(parseFleetBudget("200000tokens/hour"), { limit: 200000, unit: "tokens", period: "hour" });
  assert.deepEqual(parseFleetBudget("2.5usd/day"), { limit: 2.5, unit: "usd", period: "day" });
  for (const bad of ["0tokens/hour", "-5usd/day", "5tokens/week", "1.5tokens/hour", "tokens/hour", "5", "5usd"]) {
    assert.throws(
      () => parseFleetBudget(bad),
      (e: unknown) => isSeatError(e, "FLEET_BUDGET_INVALID") && e.message.includes(`"${bad}"`),
      bad,
    );
  }
  const hour = parseFleetBudget("10tokens/hour");
  assert.equal(
    budgetKey("jobs", hour, 3_600_000 * 5 + 1),
    budgetKey("jobs", hour, 3_600_000 * 6 - 1),
    "one window per UTC hour",
  );
  assert.notEqual(budgetKey("jobs", hour, 3_600_000 * 5), budgetKey("jobs", hour, 3_600_000 * 6));
  assert.notEqual(budgetKey("jobs", hour, 0), budgetKey("host-a", hour, 0), "one budget per queue");
});

test("three connections racing 60 reservations against a budget for exactly 5 get exactly 5; settling returns what was not used", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const conns = [0, 1, 2].map((i) => connect(parseRedisUrl(rig.redis.url), { name: `budget-${i}` }));
  try {
    const budget = parseFleetBudget("70tokens/day");
    const now = Date.now();
    const tries = await Promise.all(
      Array.from({ length: 60 }, (_, i) => reserveBudget(conns[i % 3]!, "jobs", budget, 14, now)),
    );
    const granted = tries.filter((r) => r.ok);
    assert.equal(granted.length, 5, "never more than the limit, whatever the interleaving");
    assert.equal(await conns[0]!.get(budgetKey("jobs", budget, now)), "70");
    assert.ok(tries.every((r) => r.ok || r.spent === 70 || r.spent + 14 > 70));
    // A job that used 4 of its 14 gives 10 back, which is room for no 14 but for a 10.
    const first = granted[0]!;
    assert.ok(first.ok);
    await settleBudget(conns[1]!, first.reservation, 4);
    assert.equal((await reserveBudget(conns[2]!, "jobs", budget, 14, now)).ok, false);
    assert.equal((await reserveBudget(conns[2]!, "jobs", budget, 10, now)).ok, true);
    assert.equal((await reserveBudget(conns[0]!, "jobs", budget, 1, now)).ok, false);
  } finally {
    for (const c of conns) c.disconnect();
    await rig.close();
  }
});
