/*
 * CLI policy: the permission policy of one `seat` invocation — a policy file, overridden by flags.
 * Owns: the layering rule (a category named by a flag takes the flag's action; unrestricted if either says so).
 * Does not own: parsing either source or deciding requests (permissions/).
 */
import { loadPolicyFile, parsePolicyFlags, type PermissionPolicy } from "../permissions/index.js";
import { listFlag, stringFlag, type ParsedArgs } from "./args.js";

/** Overlays `top` on `base`: every category `top` configures takes `top`'s action. */
export function layerPolicies(base: PermissionPolicy, top: PermissionPolicy): PermissionPolicy {
  const defaults = { ...base.defaults };
  const configured = new Set(base.configured ?? []);
  for (const category of top.configured ?? []) {
    defaults[category] = top.defaults[category];
    configured.add(category);
  }
  const approvalTimeoutMs = top.approvalTimeoutMs ?? base.approvalTimeoutMs;
  return {
    defaults,
    unrestricted: base.unrestricted === true || top.unrestricted === true,
    configured: [...configured],
    ...(approvalTimeoutMs !== undefined ? { approvalTimeoutMs } : {}),
  };
}

/** Builds the policy from `--policy FILE` (optional) and `--allow/--ask/--block/--unrestricted`. */
export async function cliPolicy(flags: {
  file?: string;
  allow: string[];
  ask: string[];
  block: string[];
  unrestricted: boolean;
}): Promise<PermissionPolicy> {
  const fromFlags = parsePolicyFlags({
    allow: flags.allow,
    ask: flags.ask,
    block: flags.block,
    unrestricted: flags.unrestricted,
  });
  if (!flags.file) return fromFlags;
  return layerPolicies(await loadPolicyFile(flags.file), fromFlags);
}

/** The policy of a verb that takes the standard permission flags (`--policy --allow --ask --block --unrestricted`). */
export function policyFromArgs(args: ParsedArgs): Promise<PermissionPolicy> {
  const file = stringFlag(args, "policy");
  return cliPolicy({
    ...(file ? { file } : {}),
    allow: listFlag(args, "allow"),
    ask: listFlag(args, "ask"),
    block: listFlag(args, "block"),
    unrestricted: args.values.unrestricted === true,
  });
}
