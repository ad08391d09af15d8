/*
 * MCP boundaries: what a caller of `seat mcp` may ask for, checked before anything starts.
 * Owns: narrowing the server's permission policy by a caller's allow/block lists, resolving a caller's cwd under
 *   the allowed roots (realpath, so no ".." or symlink escape), the agent allow-list, and model-id checks.
 * Does not own: parsing the server's own policy (cli/policy.ts) or deciding requests (permissions/).
 * Invariant: a caller can never widen the server's policy: every category's action after narrowing is the
 *   server's own or stricter; an allow list naming a category the server does not allow is refused
 *   (MCP_POLICY_WIDENING), never quietly ignored.
 */
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import { SeatError } from "../errors.js";
import { assertSessionName } from "../names/index.js";
import {
  PERMISSION_CATEGORIES,
  resolveAction,
  type PermissionAction,
  type PermissionCategory,
  type PermissionPolicy,
} from "../permissions/index.js";

/** A caller's narrowing of the server's policy: categories it lets be allowed, categories it blocks. */
export interface PolicyNarrowing {
  allow?: readonly PermissionCategory[];
  block?: readonly PermissionCategory[];
}

/**
 * The policy a tool call runs under: the server's resolved action per category (unrestricted mode included),
 * made stricter by the caller. A category the server allows but the caller's `allow` list leaves out, or the
 * caller blocks, is blocked. Throws MCP_POLICY_WIDENING when `allow` names a category the server does not allow.
 */
export function narrowPolicy(server: PermissionPolicy, caller: PolicyNarrowing = {}): PermissionPolicy {
  const defaults = {} as Record<PermissionCategory, PermissionAction>;
  for (const category of PERMISSION_CATEGORIES) defaults[category] = resolveAction(server, category).action;
  const widening = (caller.allow ?? []).filter((c) => defaults[c] !== "allow");
  if (widening.length > 0) {
    throw new SeatError(
      "MCP_POLICY_WIDENING",
      `The allow list names ${widening.join(", ")}, which this server's policy does not allow (${widening.map((c) => `${c}: ${defaults[c]}`).join(", ")}); a caller can only narrow the policy. Leave ${widening.length === 1 ? "it" : "them"} out, or start the server with --allow ${widening.join(",")}.`,
      { context: { categories: widening } },
    );
  }
  if (caller.allow !== undefined) {
    for (const category of PERMISSION_CATEGORIES)
      if (defaults[category] === "allow" && !caller.allow.includes(category)) defaults[category] = "block";
  }
  for (const category of caller.block ?? []) defaults[category] = "block";
  return {
    defaults,
    unrestricted: false,
    configured: [...PERMISSION_CATEGORIES],
    ...(server.approvalTimeoutMs !== undefined ? { approvalTimeoutMs: server.approvalTimeoutMs } : {}),
  };
}

/** The real path of a directory, or undefined when it does not exist or is not a directory. */
export function realDirectory(path: string): string | undefined {
  try {
    const real = realpathSync(path);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** True when `path` is `root` or lies under it (both real paths). */
export function isUnder(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/**
 * The real directory a tool call works in: `requested` (absolute) when its real path lies under one of `roots`
 * (real paths), else MCP_CWD_OUTSIDE_ROOTS; without `requested`, the first root. A symlink or ".." that leads
 * out of every root is refused, because the check is made on the resolved path.
 */
export function resolveCwd(requested: string | undefined, roots: readonly string[]): string {
  if (roots.length === 0)
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      "This server has no root to work in: start it with --root DIR, or declare a root from the client (MCP roots).",
    );
  if (requested === undefined) return roots[0]!;
  if (!isAbsolute(requested))
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `cwd ${JSON.stringify(requested)} is not an absolute path; give an absolute directory under one of the roots (${roots.join(", ")}).`,
      { context: { cwd: requested } },
    );
  const real = realDirectory(requested);
  if (real === undefined)
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `cwd ${requested} does not exist or is not a directory; give an existing directory under one of the roots (${roots.join(", ")}).`,
      { context: { cwd: requested } },
    );
  if (!roots.some((root) => isUnder(real, root))) {
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `cwd ${requested} (really ${real}) lies outside every root this server may use (${roots.join(", ")}); give a directory under one of them.`,
      { context: { cwd: requested, realPath: real, roots } },
    );
  }
  return real;
}

/** The agent a tool call drives: `requested` (default the first allowed) when it is in `allowed`, else MCP_AGENT_NOT_ALLOWED. */
export function checkAgent(requested: string | undefined, allowed: readonly string[]): string {
  const agent = requested ?? allowed[0] ?? "grok";
  if (!allowed.includes(agent))
    throw new SeatError(
      "MCP_AGENT_NOT_ALLOWED",
      `Agent ${JSON.stringify(agent)} is not one this server drives (allowed: ${allowed.join(", ")}); start it with --agents ${[...allowed, agent].join(",")} to allow it.`,
      { context: { agent, allowed } },
    );
  return agent;
}

const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

/** Throws MCP_ARGUMENT_INVALID unless `model` looks like a model id (`grok-cli/<id>`, `grok/<id>` or a bare id). */
export function checkModel(model: string): string {
  if (!MODEL_ID.test(model) || model.includes(".."))
    throw new SeatError(
      "MCP_ARGUMENT_INVALID",
      `${JSON.stringify(model)} is not a model id: use letters, digits and . _ : / - (e.g. grok-cli/grok-code-fast-1).`,
      { context: { model } },
    );
  return model;
}

/** What a turn-starting call (run, submit) names: agent, session, model and its narrowing of the policy. */
export interface TurnRequest extends PolicyNarrowing {
  agent?: string;
  session?: string;
  model?: string;
}

/**
 * A turn-starting call's choices, checked in one order before anything starts: the agent (MCP_AGENT_NOT_ALLOWED),
 * the session name (SESSION_NAME_INVALID), the model (MCP_ARGUMENT_INVALID), then the narrowed policy
 * (MCP_POLICY_WIDENING).
 */
export function checkTurnRequest(
  request: TurnRequest,
  server: { agents: readonly string[]; policy: PermissionPolicy },
): { agent: string; model: string | undefined; policy: PermissionPolicy } {
  const agent = checkAgent(request.agent, server.agents);
  if (request.session !== undefined) assertSessionName(request.session);
  const model = request.model === undefined ? undefined : checkModel(request.model);
  const policy = narrowPolicy(server.policy, {
    ...(request.allow ? { allow: request.allow } : {}),
    ...(request.block ? { block: request.block } : {}),
  });
  return { agent, model, policy };
}

/**
 * The repository a `worktree` call branches from: the one containing `cwd`, whose whole tree a seat worktree checks
 * out, so its top level must lie under one of `roots` too (else MCP_CWD_OUTSIDE_ROOTS); WORKTREE_NOT_A_REPO or
 * WORKTREE_GIT_MISSING when `cwd` is not in a git checkout.
 */
/**
 * A named session without `worktree` continues in the worktree it made on an earlier turn (by any door): that
 * worktree checks out the whole repository too, so it is held to the same rule as checkWorktreeRepository.
 */
export async function checkSessionWorktree(
  home: string,
  cwd: string,
  session: string,
  roots: readonly string[],
): Promise<void> {
  const { planTurnWorktree } = await import("../worktrees/index.js");
  const earlier = await planTurnWorktree({ home, cwd, session });
  if (earlier !== undefined) await checkWorktreeRepository(cwd, roots);
}

export async function checkWorktreeRepository(cwd: string, roots: readonly string[]): Promise<void> {
  const { resolveRepository } = await import("../worktrees/index.js");
  const repo = await resolveRepository(cwd);
  if (!roots.some((root) => isUnder(repo.root, root))) {
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `A worktree of cwd ${cwd} would check out its whole repository ${repo.root}, which lies outside every root this server may use (${roots.join(", ")}); declare the repository's top level as a root, or leave worktree out.`,
      { context: { cwd, repository: repo.root, roots } },
    );
  }
}
