/*
 * Redaction: the one place that decides which environment values are secret and masks them.
 * Owns: the allow-list of secret names (xAI's, every agent profile's auth variables, the fleet's Redis password,
 *   plus names an embedder marks secret), the process-wide set of secret values seen so far, the well-known
 *   credential shapes (CREDENTIAL_SHAPES: `sk-…`, `xai-…`, bearer tokens, `api_key=`/`token=`/`password=`/
 *   `secret=` assignments, URL userinfo), and masking all of them in text, env maps, argv and nested plans/contexts.
 * Does not own: where secrets travel (grok/, mux/, seat/ pass them only through a process environment).
 * Invariant: every serialiser of a plan, env, error, log line or audit event goes through redact();
 *   a secret value is replaced by REDACTED wherever it appears, a secret name's value is masked even when its
 *   value was never registered, and a value in a credential shape is masked though nobody registered it.
 */

/** What a secret value is replaced with. */
export const REDACTED = "[redacted]";

/** Environment names whose values are always secret. */
export const SECRET_ENV_NAMES: readonly string[] = Object.freeze([
  "XAI_API_KEY", "GROK_API_KEY", "GROK_CODE_XAI_API_KEY",
  // Every agent profile's auth variables (agents/*.ts; agents.test.ts checks each profile against this list).
  "OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "GEMINI_API_KEY", "GOOGLE_API_KEY",
  // The fleet's Redis password (fleet/connection.ts).
  "GROK_SEAT_REDIS_PASSWORD",
]);

const extraNames = new Set<string>();
const values = new Set<string>();
/** Which secret names each registered value came from (for maskSecretValues' `masked` list). */
const valueNames = new Map<string, Set<string>>();
// Values shorter than this would mask ordinary words; a real key is far longer.
const MIN_VALUE_LENGTH = 6;

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
    assignmentPattern = undefined; // a new name: the next redactText compiles the pattern again
  }
}

/**
 * `NAME=value` for every secret name, compiled once per set of names: redactText runs for every string that
 * leaves the process (each journal write of a visible seat's delivery redacts its evidence), and building
 * this pattern from the names on every call was most of its cost (P4b).
 */
let assignmentPattern: RegExp | undefined;

function secretAssignmentPattern(): RegExp {
  assignmentPattern ??= new RegExp(`\\b(${secretNames().map(escapeRegExp).join("|")})=(?!\\[redacted\\])("[^"]*"|'[^']*'|[^\\s"',;]+)`, "g");
  return assignmentPattern;
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

/** Splits `env` into its non-secret part and its secret part (by name). */
export function splitSecretEnv(env: Record<string, string>): { plain: Record<string, string>; secret: Record<string, string> } {
  const plain: Record<string, string> = {};
  const secret: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) (isSecretName(name) ? secret : plain)[name] = value;
  return { plain, secret };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Well-known credential shapes, masked in any text whether or not the value was registered: provider keys
 * (`sk-…` as OpenAI/Anthropic use, `xai-…`; 16+ characters with a digit), bearer tokens (with a digit), assignments to a name ending in api_key, token,
 * password, passwd or secret (`=` or `:`, bare, quoted or JSON), and the password of URL userinfo.
 * Each entry keeps what identifies the place (name, scheme, user) and masks only the value.
 */
export const CREDENTIAL_SHAPES: ReadonlyArray<{ name: string; pattern: RegExp; replace: (match: string, ...groups: string[]) => string }> = Object.freeze([
  {
    name: "url-userinfo",
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/:@]*):([^\s/@]+)@/gi,
    replace: (_m: string, scheme: string, user: string, pass: string) => (pass === REDACTED ? _m : `${scheme}${user}:${REDACTED}@`),
  },
  {
    name: "assignment",
    pattern: /(?<![A-Za-z0-9])([A-Za-z0-9_.-]*?(?:api[_-]?key|apikey|access[_-]?key|token|password|passwd|secret))(["']?[ \t]*[:=][ \t]*)("[^"]*"|'[^']*'|[^\s"',;&)}\]]+)/gi,
    replace: (m: string, name: string, sep: string, value: string) => {
      const bare = value.replace(/^["']|["']$/g, "");
      if (bare === "" || bare.startsWith("[redacted")) return m;
      const quote = value.startsWith('"') || value.startsWith("'") ? value[0]! : "";
      return `${name}${sep}${quote}${REDACTED}${quote}`;
    },
  },
  // Bearer tokens and provider keys need a digit, so prose ("bearer responsibility", "xai-grok-workspace") stays.
  { name: "bearer", pattern: /\b(bearer)([ \t]+)(?=[A-Za-z0-9._~+/-]{0,512}\d)[A-Za-z0-9._~+/-]{8,}=*/gi, replace: (_m: string, word: string, gap: string) => `${word}${gap}${REDACTED}` },
  { name: "provider-key", pattern: /(?<![A-Za-z0-9_-])(?:sk|xai)-(?=[A-Za-z0-9_-]{0,512}\d)[A-Za-z0-9_-]{16,}/g, replace: () => REDACTED },
]);

/** `text` with every registered secret value, every `SECRET_NAME=value` assignment and every credential shape masked. */
export function redactText(text: string): string {
  let out = text;
  for (const value of values) if (out.includes(value)) out = out.split(value).join(REDACTED);
  // String.prototype.replace with a global pattern starts at 0 and resets lastIndex, so sharing it is safe.
  out = out.replace(secretAssignmentPattern(), `$1=${REDACTED}`);
  for (const shape of CREDENTIAL_SHAPES) out = out.replace(shape.pattern, shape.replace as (substring: string, ...args: any[]) => string);
  return out;
}

/** An env map with each secret name's value masked (names stay, so a reader sees what was passed). */
export function redactEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (typeof value === "string") out[name] = isSecretName(name) ? REDACTED : redactText(value);
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
    out[key] = (isSecretName(key) && item !== undefined && item !== null) || (pairSecret && key === "value") ? REDACTED : walk(item, depth + 1);
  }
  return out;
}

// The caller's own environment is the first place secrets come from.
registerSecrets(process.env);

/*
 * Value-only masking, for model-chosen text a person must judge (an approval's target, issue 23 §1): no shape
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
