/*
 * Job spec: what a fleet job carries from `seat submit` to a worker — the prompt, the agent options and the
 *   permission policy that travels with it.
 * Owns: the JobSpec shape (schema `grok-seat.fleet-job.v1`) and its validation on both ends.
 * Does not own: running it (run-job.ts) or queueing it (enqueue.ts).
 * Invariant: a worker runs only a spec that validates; the policy is the submitter's, never the worker's —
 *   a category the submitter did not allow needs approval, which the worker holds in Redis for a person
 *   (fleet/approvals.ts) until an answer or its deadline (`policy.approvalTimeoutMs`, default 15 min).
 */
import { SeatError } from "../errors.js";
import { budgetProblem, type TurnBudget } from "../metering/index.js";
import { PERMISSION_CATEGORIES, type PermissionPolicy } from "../permissions/index.js";

/** The persisted schema name of a job's data. */
export const JOB_SCHEMA = "grok-seat.fleet-job.v1";

/** A fleet job's data. */
export interface JobSpec {
  schema: typeof JOB_SCHEMA;
  prompt: string;
  /** ACP agent profile (default grok). */
  agent?: string;
  model?: string;
  /** Working directory on the worker's host (absolute); default the worker's cwd. */
  cwd?: string;
  /** A named session to continue (per cwd) on the host that owns it. */
  session?: string;
  /** The submitter's permission policy; absent means the default (reads allowed, the rest needs approval). */
  policy?: PermissionPolicy;
  /**
   * A repository (URL, or a path absolute on the workers' hosts) to work on: the worker runs the job in a worktree of
   * its cache clone on branch seat/<job id> and pushes that branch there at the end (docs/worktrees.md).
   */
  repo?: string;
  /** With repo: branch from this ref instead of the repository's HEAD. */
  base?: string;
  /** Turn limits in ms (0 or absent = the worker's defaults). */
  turnTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** The turn's budget (docs/spend.md); a crossed budget cancels the turn with BUDGET_EXCEEDED. */
  budget?: TurnBudget;
  /** Run the budget even on an agent that does not report what it limits. */
  allowUnmetered?: boolean;
  /**
   * Notification targets by NAME only (`["none"]` for none; absent = the worker's `default`): the targets themselves
   * — URLs, commands, secrets — come from the worker's own config, never from the job (docs/notifications.md#fleet).
   */
  notify?: string[];
}

const ACTIONS = new Set(["allow", "require-approval", "block"]);

function fail(message: string): never {
  throw new SeatError("FLEET_JOB_INVALID", message);
}

/** Checks untrusted job data and returns it typed; throws FLEET_JOB_INVALID naming the first problem. */
export function validateJobSpec(data: unknown): JobSpec {
  if (!data || typeof data !== "object" || Array.isArray(data)) fail("A fleet job's data must be an object.");
  const spec = data as Record<string, unknown>;
  if (spec.schema !== JOB_SCHEMA)
    fail(`A fleet job must carry schema "${JOB_SCHEMA}", not ${JSON.stringify(spec.schema)}.`);
  if (typeof spec.prompt !== "string" || spec.prompt.trim() === "") fail("A fleet job needs a non-empty prompt.");
  for (const key of ["agent", "model", "cwd", "session", "repo", "base"] as const) {
    if (spec[key] !== undefined && (typeof spec[key] !== "string" || spec[key] === ""))
      fail(`A fleet job's ${key} must be a non-empty string.`);
  }
  if (typeof spec.cwd === "string" && !spec.cwd.startsWith("/"))
    fail(`A fleet job's cwd must be absolute, not "${spec.cwd}".`);
  if (spec.repo !== undefined && (spec.cwd !== undefined || spec.session !== undefined))
    fail("A fleet job with a repo works in its own worktree: it takes neither cwd nor session.");
  if (spec.base !== undefined && spec.repo === undefined) fail("A fleet job's base only applies with a repo.");
  for (const key of ["turnTimeoutMs", "idleTimeoutMs"] as const) {
    const value = spec[key];
    if (value !== undefined && (typeof value !== "number" || !Number.isInteger(value) || value < 0))
      fail(`A fleet job's ${key} must be a whole number of ms.`);
  }
  if (spec.policy !== undefined) checkPolicy(spec.policy);
  if (spec.budget !== undefined) {
    const problem = budgetProblem(spec.budget);
    if (problem) fail(`A fleet job's ${problem}.`);
  }
  if (spec.allowUnmetered !== undefined && typeof spec.allowUnmetered !== "boolean")
    fail("A fleet job's allowUnmetered must be a boolean.");
  if (spec.notify !== undefined) checkNotify(spec.notify);
  return spec as unknown as JobSpec;
}

const TARGET_NAME = /^[A-Za-z0-9._-]{1,64}$/;

/** A job names targets, nothing more: a URL, a command or a secret has no place to go. */
function checkNotify(notify: unknown): void {
  if (!Array.isArray(notify) || notify.length > 16 || notify.some((n) => typeof n !== "string" || !TARGET_NAME.test(n)))
    fail("A fleet job's notify must list up to 16 target names ([A-Za-z0-9._-], up to 64 characters).");
  if (notify.includes("none") && notify.length > 1) fail("A fleet job's notify cannot combine none with targets.");
}

function checkPolicy(policy: unknown): void {
  if (!policy || typeof policy !== "object") fail("A fleet job's policy must be an object.");
  const { defaults, unrestricted, configured } = policy as Record<string, unknown>;
  if (!defaults || typeof defaults !== "object") fail("A fleet job's policy needs defaults per category.");
  for (const category of PERMISSION_CATEGORIES) {
    const action = (defaults as Record<string, unknown>)[category];
    if (typeof action !== "string" || !ACTIONS.has(action))
      fail(`A fleet job's policy has no valid action for "${category}".`);
  }
  if (unrestricted !== undefined && typeof unrestricted !== "boolean")
    fail("A fleet job's policy.unrestricted must be a boolean.");
  const approvalTimeoutMs = (policy as Record<string, unknown>).approvalTimeoutMs;
  if (approvalTimeoutMs !== undefined && (typeof approvalTimeoutMs !== "number" || !(approvalTimeoutMs > 0)))
    fail("A fleet job's policy.approvalTimeoutMs must be a positive number of ms.");
  if (
    configured !== undefined &&
    (!Array.isArray(configured) || configured.some((c) => !PERMISSION_CATEGORIES.includes(c)))
  ) {
    fail("A fleet job's policy.configured must list known categories.");
  }
}
