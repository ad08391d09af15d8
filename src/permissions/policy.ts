/*
 * Permission policy: what the gate does per category, and where that answer came from.
 * Owns: PermissionPolicy, the safe default, createPolicy() and resolveAction() (pure).
 * Does not own: parsing flags or files (policy-parse.ts) or answering the agent (gate.ts).
 * Invariant: `unrestricted` auto-allows only categories nobody configured; an explicitly configured
 *   `require-approval` or `block` still applies (seed 002 "Permissions").
 */
import { PERMISSION_CATEGORIES, type PermissionCategory } from "./categorize.js";

/** What the gate does for a category. */
export type PermissionAction = "allow" | "require-approval" | "block";

/**
 * A per-category policy. `configured` lists the categories an operator set explicitly; when it is absent,
 * the categories whose action differs from DEFAULT_POLICY count as configured.
 */
export interface PermissionPolicy {
  defaults: Record<PermissionCategory, PermissionAction>;
  unrestricted?: boolean;
  configured?: readonly PermissionCategory[];
  /** How long a held approval waits for a person before it is denied (ms; policy file `approvalTimeout`, seconds). */
  approvalTimeoutMs?: number;
}

/** Where a resolved action came from: an operator's entry or unrestricted mode ("policy"), or the built-in default. */
export type ActionSource = "policy" | "default";

/** The safe default: reads are allowed, everything else needs approval. */
export const DEFAULT_POLICY: Readonly<PermissionPolicy> = Object.freeze({
  defaults: Object.freeze({
    read: "allow",
    edit: "require-approval",
    execute: "require-approval",
    network: "require-approval",
    mcp: "require-approval",
    other: "require-approval",
  }) as Record<PermissionCategory, PermissionAction>,
  unrestricted: false,
});

/** Input of createPolicy: category lists per action, plus unrestricted mode. */
export interface PolicyEntries {
  allow?: readonly PermissionCategory[];
  ask?: readonly PermissionCategory[];
  block?: readonly PermissionCategory[];
  unrestricted?: boolean;
}

/** Builds a policy from already-checked category lists; later lists do not override earlier ones (callers refuse conflicts). */
export function createPolicy(entries: PolicyEntries = {}): PermissionPolicy {
  const defaults = { ...DEFAULT_POLICY.defaults };
  const configured: PermissionCategory[] = [];
  const apply = (list: readonly PermissionCategory[] | undefined, action: PermissionAction): void => {
    for (const category of list ?? []) {
      defaults[category] = action;
      if (!configured.includes(category)) configured.push(category);
    }
  };
  apply(entries.allow, "allow");
  apply(entries.ask, "require-approval");
  apply(entries.block, "block");
  return { defaults, unrestricted: entries.unrestricted === true, configured };
}

function configuredSet(policy: PermissionPolicy): Set<PermissionCategory> {
  if (policy.configured) return new Set(policy.configured);
  return new Set(PERMISSION_CATEGORIES.filter((c) => policy.defaults[c] !== DEFAULT_POLICY.defaults[c]));
}

/** Resolves the action for a category and whether it came from the operator's policy or the built-in default. */
export function resolveAction(
  policy: PermissionPolicy,
  category: PermissionCategory,
): { action: PermissionAction; source: ActionSource } {
  const configured = configuredSet(policy);
  const action = policy.defaults[category] ?? DEFAULT_POLICY.defaults[category] ?? "require-approval";
  if (configured.has(category)) return { action, source: "policy" };
  if (policy.unrestricted) return { action: "allow", source: "policy" };
  return { action, source: "default" };
}
