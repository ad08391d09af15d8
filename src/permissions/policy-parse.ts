/*
 * Policy parsing: permission policies from CLI flags (CSV lists) and from a policy file.
 * Owns: parsePolicyFlags(), parsePolicyJson(), loadPolicyFile() and schema grok-seat.permissions.v1.
 * Does not own: resolving actions (policy.ts).
 * Invariant: anything unclear is refused, never guessed — an unknown category, a category in two lists,
 *   an unknown key or bad JSON throws PERMISSION_POLICY_INVALID naming the bad value.
 * File: {"schema":"grok-seat.permissions.v1","allow":[],"ask":[],"block":[],"unrestricted":false,"approvalTimeout":900}
 *   (`approvalTimeout`: seconds a held approval waits for a person, a positive number; optional).
 */
import { readFile } from "node:fs/promises";
import { SeatError, messageOf } from "../errors.js";
import { PERMISSION_CATEGORIES, type PermissionCategory } from "./categorize.js";
import { createPolicy, type PermissionPolicy } from "./policy.js";

/** The versioned schema name of a policy file. */
export const POLICY_SCHEMA = "grok-seat.permissions.v1";

/** Flag values as the CLI receives them: comma-separated category lists. */
export interface PolicyFlags {
  allow?: string | readonly string[];
  ask?: string | readonly string[];
  block?: string | readonly string[];
  unrestricted?: boolean;
}

const LISTS = ["allow", "ask", "block"] as const;

function invalid(message: string, context: Record<string, unknown>): SeatError {
  return new SeatError("PERMISSION_POLICY_INVALID", message, { context });
}

function splitList(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  const parts = typeof value === "string" ? value.split(",") : value.flatMap((v) => String(v).split(","));
  return parts.map((p) => p.trim().toLowerCase()).filter((p) => p.length > 0);
}

function buildPolicy(
  lists: Record<(typeof LISTS)[number], string[]>,
  unrestricted: boolean,
  origin: string,
): PermissionPolicy {
  const seenIn = new Map<PermissionCategory, string>();
  const checked: Record<string, PermissionCategory[]> = {};
  for (const list of LISTS) {
    checked[list] = [];
    for (const value of lists[list]) {
      if (!(PERMISSION_CATEGORIES as readonly string[]).includes(value)) {
        throw invalid(
          `Unknown permission category "${value}" in ${origin} ${list}; use one of ${PERMISSION_CATEGORIES.join(", ")}.`,
          { value, list, origin },
        );
      }
      const category = value as PermissionCategory;
      const earlier = seenIn.get(category);
      if (earlier !== undefined && earlier !== list) {
        throw invalid(
          `Permission category "${category}" is in both ${earlier} and ${list} (${origin}); keep it in one list.`,
          {
            value: category,
            lists: [earlier, list],
            origin,
          },
        );
      }
      seenIn.set(category, list);
      if (!checked[list]!.includes(category)) checked[list]!.push(category);
    }
  }
  return createPolicy({ allow: checked.allow, ask: checked.ask, block: checked.block, unrestricted });
}

/** Builds a policy from `--allow`, `--ask`, `--block` CSV lists (and `--unrestricted`). */
export function parsePolicyFlags(flags: PolicyFlags): PermissionPolicy {
  return buildPolicy(
    { allow: splitList(flags.allow), ask: splitList(flags.ask), block: splitList(flags.block) },
    flags.unrestricted === true,
    "flags",
  );
}

/** Parses the text of a grok-seat.permissions.v1 file; `origin` names it in errors. */
export function parsePolicyJson(text: string, origin = "policy file"): PermissionPolicy {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(`${origin} is not valid JSON: ${messageOf(error)}.`, { origin });
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw invalid(`${origin} must hold a JSON object with "schema": "${POLICY_SCHEMA}".`, { origin });
  }
  const record = data as Record<string, unknown>;
  if (record.schema !== POLICY_SCHEMA) {
    throw invalid(`${origin} has schema ${JSON.stringify(record.schema)}; expected "${POLICY_SCHEMA}".`, {
      origin,
      value: record.schema,
    });
  }
  for (const key of Object.keys(record)) {
    if (!["schema", "unrestricted", "approvalTimeout", ...LISTS].includes(key)) {
      throw invalid(
        `${origin} has unknown key "${key}"; allowed keys are schema, allow, ask, block, unrestricted, approvalTimeout.`,
        { origin, value: key },
      );
    }
  }
  const lists = { allow: [] as string[], ask: [] as string[], block: [] as string[] };
  for (const list of LISTS) {
    const value = record[list];
    if (value === undefined) continue;
    if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
      throw invalid(`${origin} "${list}" must be an array of category names.`, { origin, value: list });
    }
    lists[list] = value.map((v: string) => v.trim().toLowerCase());
  }
  if (record.unrestricted !== undefined && typeof record.unrestricted !== "boolean") {
    throw invalid(`${origin} "unrestricted" must be true or false.`, { origin, value: record.unrestricted });
  }
  const timeout = record.approvalTimeout;
  if (
    timeout !== undefined &&
    (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout <= 0 || timeout > 7 * 24 * 3600)
  ) {
    throw invalid(
      `${origin} "approvalTimeout" must be a number of seconds above 0 (at most a week), got ${JSON.stringify(timeout)}.`,
      { origin, value: timeout },
    );
  }
  const policy = buildPolicy(lists, record.unrestricted === true, origin);
  return timeout === undefined ? policy : { ...policy, approvalTimeoutMs: Math.round(timeout * 1000) };
}

/** Reads and parses a policy file; an unreadable file is PERMISSION_POLICY_INVALID naming the path. */
export async function loadPolicyFile(path: string): Promise<PermissionPolicy> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new SeatError(
      "PERMISSION_POLICY_INVALID",
      `Permission policy file ${path} could not be read: ${messageOf(error)}.`,
      {
        context: { path },
        cause: error,
      },
    );
  }
  return parsePolicyJson(text, `policy file ${path}`);
}
