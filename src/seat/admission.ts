/*
 * Seat admission: may this leader and its agent drive a visible seat at all?
 * Owns: the version floor (a setting, default 1.0.46), the protocol checks (leader protocol 1 with
 *   control_v1, ACP protocol 1 with loadSession) and the one-version rule (grok --version, the
 *   leader's registered version and initialize _meta.agentVersion agree).
 * Does not own: proving who the leader is (proof.ts) or reading the frames (leader/, acp/).
 * Invariant: anything missing or disagreeing refuses with the found version and exactly what it lacks
 *   (LEADER_VERSION_REFUSED); a floor lowered below the verified one is recorded, never silent.
 * Spec: ADR 0224 amendment (2026-10-17); docs/seat-protocol.md#admission
 */
import { SeatError } from "../errors.js";
import { compareVersions } from "../grok/index.js";
import type { LeaderRegistration } from "../leader/index.js";

/** The lowest grok version that received boundary and live verification (ADR 0224 amendment). */
export const VERIFIED_VERSION_FLOOR = "1.0.46";

/** What admission looks at: the three reported versions and the two protocol handshakes. */
export interface AdmissionInput {
  /** The floor in force; defaults to VERIFIED_VERSION_FLOOR. */
  versionFloor?: string;
  /** Version from `grok --version` (plain semver, without the sha). */
  cliVersion: string | null;
  registered: Pick<LeaderRegistration, "leaderProtocolVersion" | "leaderBinaryVersion" | "leaderCapabilities">;
  /** The ACP initialize result (protocolVersion, agentCapabilities, _meta.agentVersion). */
  initialize?: { protocolVersion?: unknown; agentCapabilities?: unknown; _meta?: unknown } | null;
}

/** The admission record kept with the seat. */
export interface Admission {
  version: string;
  versionFloor: string;
  /** True when the floor in force is below the verified floor and the version is too. */
  belowVerifiedFloor: boolean;
}

/** What the registered frame lacks for control (empty when protocol 1 with control_v1). */
export function leaderProtocolGaps(registered: AdmissionInput["registered"]): string[] {
  const gaps: string[] = [];
  if (registered.leaderProtocolVersion !== 1)
    gaps.push(`leader protocol 1 (reports ${registered.leaderProtocolVersion ?? "none"})`);
  if (registered.leaderCapabilities.control_v1 !== true) gaps.push("leader capability control_v1");
  return gaps;
}

/** What the ACP initialize result lacks (empty when protocol 1 with loadSession). */
export function agentProtocolGaps(initialize: AdmissionInput["initialize"]): string[] {
  if (!initialize) return ["an ACP initialize result"];
  const gaps: string[] = [];
  if (initialize.protocolVersion !== 1)
    gaps.push(`ACP protocol 1 (initialize reports ${JSON.stringify(initialize.protocolVersion ?? null)})`);
  const caps = (initialize.agentCapabilities ?? {}) as Record<string, unknown>;
  if (caps.loadSession !== true) gaps.push("ACP agentCapabilities.loadSession");
  return gaps;
}

/** The agent version from initialize `_meta.agentVersion`, or null. */
export function agentVersionOf(initialize: AdmissionInput["initialize"]): string | null {
  const meta = (initialize?._meta ?? {}) as Record<string, unknown>;
  return typeof meta.agentVersion === "string" ? meta.agentVersion : null;
}

function refuse(found: string, lacks: string[], context: Record<string, unknown>): SeatError {
  return new SeatError(
    "LEADER_VERSION_REFUSED",
    `grok ${found} cannot drive a visible seat: it lacks ${lacks.join("; ")}. Install a grok at or above the floor that reports all of these, or release the seat.`,
    { context: { ...context, found, lacks } },
  );
}

/**
 * Checks the leader half (before initialize): protocol 1 with control_v1, the leader's version at or
 * above the floor. Throws LEADER_VERSION_REFUSED naming the found version and what it lacks.
 */
export function admitLeader(input: Pick<AdmissionInput, "registered" | "versionFloor" | "cliVersion">): void {
  const floor = input.versionFloor ?? VERIFIED_VERSION_FLOOR;
  const found = input.registered.leaderBinaryVersion ?? input.cliVersion ?? "unknown";
  const lacks = leaderProtocolGaps(input.registered);
  const leaderVersion = input.registered.leaderBinaryVersion;
  if (leaderVersion === null) lacks.push("a leader_binary_version in registered");
  else if (compareVersions(leaderVersion, floor) < 0) lacks.push(`version ${floor} or newer (the floor in force)`);
  if (lacks.length > 0) throw refuse(found, lacks, { versionFloor: floor, registered: input.registered });
}

/**
 * Full admission after initialize: leader and agent protocols, the floor, and one version across
 * `grok --version`, the leader and its agent. Returns the admission record or throws LEADER_VERSION_REFUSED.
 */
export function admitSeat(input: AdmissionInput): Admission {
  const floor = input.versionFloor ?? VERIFIED_VERSION_FLOOR;
  const agentVersion = agentVersionOf(input.initialize);
  const versions = { cli: input.cliVersion, leader: input.registered.leaderBinaryVersion, agent: agentVersion };
  const found = versions.leader ?? versions.cli ?? versions.agent ?? "unknown";
  const lacks = [...leaderProtocolGaps(input.registered), ...agentProtocolGaps(input.initialize)];
  const missing = Object.entries(versions)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  if (missing.length > 0) lacks.push(`a reported version from ${missing.join(", ")}`);
  const distinct = new Set(Object.values(versions).filter((v): v is string => v !== null));
  if (distinct.size > 1)
    lacks.push(
      `one version across grok --version (${versions.cli}), the leader (${versions.leader}) and its agent (${versions.agent})`,
    );
  for (const v of distinct)
    if (compareVersions(v, floor) < 0) lacks.push(`version ${floor} or newer (the floor in force; found ${v})`);
  if (lacks.length > 0) throw refuse(found, [...new Set(lacks)], { versionFloor: floor, versions });
  return {
    version: found,
    versionFloor: floor,
    belowVerifiedFloor:
      compareVersions(floor, VERIFIED_VERSION_FLOOR) < 0 && compareVersions(found, VERIFIED_VERSION_FLOOR) < 0,
  };
}
