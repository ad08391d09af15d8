/*
 * Job seal: what proves a fleet job runs exactly what its submitter wrote — the spec's digest, and with a fleet
 *   key, an HMAC-SHA256 signature over the job id, the submitter and that digest.
 * Owns: the canonical form of a spec, its digest (`spec_digest`), the signature (`spec_sig`), the fleet key's
 *   environment name (GROK_SEAT_FLEET_KEY, registered secret) and the check a worker makes before dispatch.
 * Does not own: storing the seal (client.ts writes it in the job record's own creation, a fleet key that BullMQ and
 *   bull-board never write), running the job (run-job.ts).
 * Invariant: a spec that differs in any field from what its submitter sealed — prompt, policy, cwd, agent, model,
 *   budget, anything else it carries — fails the check (FLEET_JOB_TAMPERED); with a key, a job with no signature
 *   fails it too (FLEET_JOB_UNSIGNED); the key's value is only ever read from a process environment.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { SeatError } from "../errors.js";
import { markSecretNames, registerSecrets } from "../internal/redact.js";
import type { JobSpec } from "./job-spec.js";

/** The environment variable holding the fleet key (never an argument, never a file). */
export const FLEET_KEY_ENV = "GROK_SEAT_FLEET_KEY";
markSecretNames([FLEET_KEY_ENV]);

/** The shortest fleet key accepted (characters). */
export const MIN_FLEET_KEY_LENGTH = 32;

const SIGNATURE_SCHEMA = "grok-seat.fleet-job-sig.v1";

/** The seal as stored in the job's record (snake_case hash fields). */
export interface JobSeal {
  spec_digest: string;
  submitted_by: string;
  spec_sig?: string;
}

/**
 * The fleet key from `env` (registered as a secret value), or undefined when none is set. A key shorter than
 * MIN_FLEET_KEY_LENGTH is refused (FLEET_KEY_INVALID), so a typo never signs with a guessable key.
 */
export function fleetKey(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = env[FLEET_KEY_ENV];
  if (key === undefined || key === "") return undefined;
  registerSecrets({ [FLEET_KEY_ENV]: key });
  if (key.length < MIN_FLEET_KEY_LENGTH)
    throw new SeatError(
      "FLEET_KEY_INVALID",
      `The fleet key in ${FLEET_KEY_ENV} must be at least ${MIN_FLEET_KEY_LENGTH} characters long (for example 32 random bytes, base64). Nothing was sent.`,
    );
  return key;
}

/** JSON with object keys sorted at every depth: one text per spec, whoever serialised it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** sha256 (hex) of the spec's canonical JSON. */
export function specDigest(spec: JobSpec): string {
  return createHash("sha256").update(canonicalJson(spec)).digest("hex");
}

function signature(key: string, id: string, submitter: string, digest: string): string {
  return createHmac("sha256", key).update(`${SIGNATURE_SCHEMA}\n${id}\n${submitter}\n${digest}`).digest("hex");
}

/** The seal a submitter stores with job `id`: the digest, who submitted it, and the signature when it has a key. */
export function sealJob(id: string, spec: JobSpec, submitter: string, key: string | undefined): JobSeal {
  const digest = specDigest(spec);
  return {
    spec_digest: digest,
    submitted_by: submitter,
    ...(key ? { spec_sig: signature(key, id, submitter, digest) } : {}),
  };
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Checks the spec a worker was handed against the seal in the job's record. Throws FLEET_JOB_UNSIGNED when the
 * record carries no digest (or, with a key, no signature), FLEET_JOB_TAMPERED when the spec's digest or the
 * signature does not match.
 */
export function checkSeal(id: string, spec: JobSpec, seal: Partial<JobSeal>, key: string | undefined): void {
  if (!seal.spec_digest || seal.submitted_by === undefined) {
    throw new SeatError(
      "FLEET_JOB_UNSIGNED",
      `Job ${id} carries no digest of its submitter's spec (not submitted by seat submit or the fleet client of this version); it was not run.`,
      { context: { jobId: id } },
    );
  }
  if (key) {
    if (!seal.spec_sig)
      throw new SeatError(
        "FLEET_JOB_UNSIGNED",
        `Job ${id} is not signed with the fleet key, and this worker runs only signed jobs (${FLEET_KEY_ENV} is set); it was not run.`,
        { context: { jobId: id } },
      );
    if (!sameHex(seal.spec_sig, signature(key, id, seal.submitted_by, seal.spec_digest))) {
      throw new SeatError(
        "FLEET_JOB_TAMPERED",
        `Job ${id}'s signature does not verify with this worker's fleet key: its record was written by someone without the key (or another key); it was not run.`,
        { context: { jobId: id } },
      );
    }
  }
  if (!sameHex(specDigest(spec), seal.spec_digest)) {
    throw new SeatError(
      "FLEET_JOB_TAMPERED",
      `Job ${id}'s spec differs from what ${seal.submitted_by || "its submitter"} submitted (its prompt, policy, cwd, agent, model, budget or another field was rewritten after submission); it was not run.`,
      { context: { jobId: id } },
    );
  }
}
