/*
 * Permissions front door: the per-category gate and its policy.
 * Owns: the public names of permissions/ (listed by hand; adding one is an API decision).
 */
export { categorize, PERMISSION_CATEGORIES } from "./categorize.js";
export type { PermissionCategory } from "./categorize.js";
export { createPolicy, DEFAULT_POLICY, resolveAction } from "./policy.js";
export type { ActionSource, PermissionAction, PermissionPolicy, PolicyEntries } from "./policy.js";
export { loadPolicyFile, parsePolicyFlags, parsePolicyJson, POLICY_SCHEMA } from "./policy-parse.js";
export type { PolicyFlags } from "./policy-parse.js";
export { chooseResponse } from "./options.js";
export type { Answer, ChosenResponse } from "./options.js";
export { createPermissionGate } from "./gate.js";
export type {
  ApprovalRequest,
  Approver,
  ApproverAnswer,
  DecideContext,
  FallbackReason,
  GateDecision,
  PermissionAudit,
  PermissionGate,
  PermissionGateOptions,
} from "./gate.js";
