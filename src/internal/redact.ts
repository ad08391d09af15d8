/*
 * Redaction: the one place that decides which values are secret and masks them in everything the seat writes.
 * Owns: the allow-list of secret names (xAI's, every agent profile's key variables, the fleet's Redis password,
 *   the board token, plus names an embedder marks secret), the process-wide store of the secret VALUES known so
 *   far (each with the names it came from; one store shared by every copy of grok-seat in the process), and
 *   masking those values in text, env maps, argv and nested records.
 * Does not own: where secrets travel (grok/, mux/, seat/ pass them only through a process environment), or
 *   where they are first read: each place that reads or makes a secret registers it here (session and plan
 *   envs, redis/connection.ts for the Redis password and a redis URL's userinfo, board/server.ts for its token).
 * Invariant: every serialiser of output (CLI text and --json, MCP results and progress, the board, the journal,
 *   the session store, the ledger, fleet records, controller logs, errors, diagnostics; notifications to come)
 *   goes through redactText() / redact() — that is the one function a new output path calls.
 * Policy: mask only known secret VALUES, and say so. Text is never masked by its shape: an `api_key=…`,
 *   `sk-…`, `Bearer …` or URL password the seat was not given stays as it is, because much of what passes here
 *   is model-chosen (a command a person approves, an answer, tool output) and a shape rule hides from that person
 *   the very text they must judge. The one rule that is not value-based reads structure, not text: in an env map
 *   (redactEnv) or a record (redact), a field or ACP `{name, value}` pair NAMED for a secret (XAI_API_KEY, …) has
 *   its value masked whatever it is — the seat's own plans and seat files carry the env it passes, and a short
 *   value (below MIN_VALUE_LENGTH) is not in the value store. maskSecretValues() also returns the names masked,
 *   so a record a person reads can say which.
 */

/** What a secret value is replaced with. */
export const REDACTED = "[redacted]";

/** Environment names whose values are always secret. */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([
  "XAI_API_KEY",
  "GROK_API_KEY",
  "GROK_CODE_XAI_API_KEY",
  // Every agent profile's auth variables (agents/*.ts; agents.test.ts checks each profile against this list).
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  // The fleet's Redis password (redis/connection.ts).
  "GROK_SEAT_REDIS_PASSWORD",
  // The board's access token (board/server.ts), given or made fresh.
  "GROK_SEAT_BOARD_TOKEN",
]);

/** The secret names marked and values registered so far. */
interface SecretStore {
  extraNames: Set<string>;
  values: Set<string>;
  /** Which secret names each registered value came from (for maskSecretValues' `masked` list). */
  valueNames: Map<string, Set<string>>;
}

// One store per process, kept under a registered symbol: the `seat` bin is a bundle holding its own copy of this
// module, and a worker's tools module that imports the library loads another. What either copy learns, both mask.
const STORE_KEY = Symbol.for("grok-seat.redaction.v1");
const holder = globalThis as { [STORE_KEY]?: SecretStore };
holder[STORE_KEY] ??= { extraNames: new Set(), values: new Set(), valueNames: new Map() };
const { extraNames, values, valueNames } = holder[STORE_KEY];
/**
 * Values shorter than this are not registered: they would mask ordinary words in every output. A real key or
 * token is far longer; the board refuses a token under 16 characters. (A short value under a secret NAME is
 * still masked in env maps and records; see the header.)
 */
export const MIN_VALUE_LENGTH = 6;

/** True when `name` is an allow-listed secret or one an embedder marked secret. */
export function isSecretName(name: string): boolean {
  return SECRET_ENV_NAMES.includes(name) || extraNames.has(name);
}

/** Every secret name known now (the allow-list plus marked names). */
export function secretNames(): string[] {
  return [...SECRET_ENV_NAMES, ...extraNames];
}

/** Marks more environment names as secret (an embedder's option); process-wide, never unmarked. */
export function markSecretNames(names: readonly string[] | undefined): void {
  for (const name of names ?? []) {
    if (typeof name !== "string" || name === "" || extraNames.has(name)) continue;
    extraNames.add(name);
  }
}

/** Records the values of every secret name in `env` so later output masks them. Returns `env`. */
export function registerSecrets<T extends Record<string, string | undefined>>(env: T, names?: readonly string[]): T {
  markSecretNames(names);
  for (const [name, value] of Object.entries(env)) {
    if (isSecretName(name) && typeof value === "string" && value.length >= MIN_VALUE_LENGTH) {
      values.add(value);
      valueNames.set(value, (valueNames.get(value) ?? new Set<string>()).add(name));
    }
  }
  return env;
}

/** Records one secret `value` under `name` (marked secret if it was not): the board token, a Redis password. */
export function registerSecretValue(name: string, value: string): void {
  registerSecrets({ [name]: value }, [name]);
}

/**
 * Records the password of `url`'s userinfo (`redis://:pw@host`) under `name`, both as written in the URL and
 * decoded, so the URL's text and the password alone are both masked. A text that is not a URL registers nothing.
 */
export function registerUrlPassword(url: string, name: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return;
  }
  if (parsed.password === "") return;
  registerSecretValue(name, parsed.password);
  try {
    registerSecretValue(name, decodeURIComponent(parsed.password));
  } catch {
    // a malformed %-escape: the written form is registered, and is what any output shows
  }
}

/** Splits `env` into its non-secret part and its secret part (by name). */
export function splitSecretEnv(env: Record<string, string>): {
  plain: Record<string, string>;
  secret: Record<string, string>;
} {
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) (isSecretName(name) ? secret : plain)[name] = value;
  return { plain, secret };
}

/** `text` with every registered secret value masked (value-only; see maskSecretValues for the names masked). */
export function redactText(text: string): string {
  return maskSecretValues(text).text;
}

/** An env map with each secret name's value masked (names stay, so a reader sees what was passed). */
export function redactEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (typeof value === "string") out[name] = isSecretName(name) ? REDACTED : redactText(value);
  return out;
}

/**
 * A deep copy of `value` with secrets masked: strings through redactText, object keys that are secret
 * names get REDACTED, ACP `{name, value}` env pairs with a secret name too, arrays of bytes (grok's shell output)
 * as the UTF-8 text they hold. Errors become {name, message}.
 */
export function redact<T>(value: T): T {
  return walk(value, 0) as T;
}

// grok reports a shell command's output as an array of bytes (rawOutput {type:"Bash", output:[…]}): text in disguise.
function isByteArray(value: unknown[]): value is number[] {
  return value.length >= 8 && value.every((b) => typeof b === "number" && Number.isInteger(b) && b >= 0 && b <= 255);
}

/** The bytes decoded as UTF-8, masked, and encoded again; the very same numbers when nothing was masked. */
function redactBytes(bytes: number[]): number[] {
  const text = Buffer.from(bytes).toString("utf8");
  const masked = redactText(text);
  return masked === text ? [...bytes] : [...Buffer.from(masked, "utf8")];
}

function walk(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactText(value);
  if (value === null || typeof value !== "object" || depth > 32) return value;
  if (Array.isArray(value)) return isByteArray(value) ? redactBytes(value) : value.map((item) => walk(item, depth + 1));
  if (value instanceof Error) return { name: value.name, message: redactText(value.message) };
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value; // class instances (Buffer, Date…) stay as they are
  const record = value as Record<string, unknown>;
  const pairSecret = typeof record.name === "string" && isSecretName(record.name) && "value" in record;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) {
    out[key] =
      (isSecretName(key) && item !== undefined && item !== null) || (pairSecret && key === "value")
        ? REDACTED
        : walk(item, depth + 1);
  }
  return out;
}

/**
 * A masker for text that arrives in pieces (an answer streamed chunk by chunk): push() returns what can be shown
 * now, masked, and holds back the shortest tail that could still begin a known value; end() returns the rest.
 * A secret split across pieces is masked as if it had come whole.
 */
export function createStreamMasker(): { push(chunk: string): string; end(): string } {
  let held = "";
  return {
    push(chunk) {
      const text = redactText(held + chunk);
      const keep = pendingPrefixLength(text);
      held = text.slice(text.length - keep);
      return text.slice(0, text.length - keep);
    },
    end() {
      const rest = redactText(held);
      held = "";
      return rest;
    },
  };
}

/** The length of the longest tail of `text` that is the beginning (not the whole) of a known value; 0 when none. */
function pendingPrefixLength(text: string): number {
  let longest = 0;
  const last = text.charCodeAt(text.length - 1);
  for (const value of values) {
    for (let n = Math.min(value.length - 1, text.length); n > longest; n -= 1) {
      // The cheap test first: a candidate prefix must end in the text's last character.
      if (value.charCodeAt(n - 1) === last && text.endsWith(value.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

// The caller's own environment is the first place secrets come from.
registerSecrets(process.env);

/*
 * Value-only masking, for model-chosen text a person must judge (an approval's target): no shape
 * rule runs over it, so `token="$(touch X)"` stays what it is; only the exact registered secret values are
 * replaced, and the names they came from are returned so the record can say what was masked.
 */
/** `text` with every registered secret value (longest first) replaced by REDACTED, and the sorted names masked. */
export function maskSecretValues(text: string): { text: string; masked: string[] } {
  let out = text;
  const masked = new Set<string>();
  for (const value of [...values].sort((a, b) => b.length - a.length)) {
    if (!out.includes(value)) continue;
    out = out.split(value).join(REDACTED);
    for (const name of valueNames.get(value) ?? []) masked.add(name);
  }
  return { text: out, masked: [...masked].sort() };
}
