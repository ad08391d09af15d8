/*
 * Session names and scopes: what a name may look like and which namespace it lives in.
 * Owns: name validation and the scope string (the absolute cwd by default, "global" with --global).
 * Does not own: storing names (session-store/store.ts).
 * Invariant: a name is 1–64 of [A-Za-z0-9._-] not starting with "." or "-"; a cwd scope is an absolute path.
 */
import { resolve } from "node:path";
import { SeatError } from "../errors.js";

/** The scope of names that are not bound to a directory. */
export const GLOBAL_SCOPE = "global";

const NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;

/** Throws SESSION_NAME_INVALID unless `name` is a usable session name. */
export function assertSessionName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new SeatError(
      "SESSION_NAME_INVALID",
      `${JSON.stringify(name)} is not a session name: use 1–64 letters, digits, ".", "_" or "-", not starting with "." or "-".`,
      { context: { name: typeof name === "string" ? name : typeof name } },
    );
  }
}

/** The scope a name lives in: GLOBAL_SCOPE, or the absolute cwd (names are per directory by default). */
export function scopeFor(cwd: string, global: boolean): string {
  return global ? GLOBAL_SCOPE : `cwd:${resolve(cwd)}`;
}
