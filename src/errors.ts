/*
 * Errors: the one error class of grok-seat and the catalogue of its codes.
 * Owns: SeatError, the code list (one line each), and isSeatError.
 * Does not own: mapping codes to CLI exit codes (cli/output.ts) or wire error numbers (acp/, tools/).
 * Invariant: a code never changes meaning; a new meaning gets a new code. Message and context are
 *   redacted on construction (internal/redact.ts), so a SeatError never carries a secret value.
 */
import { redact, redactText } from "./internal/redact.js";

/** Every stable error code, with the one-line meaning it keeps forever. */
export const ERROR_CODES = {
  // grok/ — the binary
  GROK_NOT_FOUND: "no grok binary could be resolved (option, GROK_BIN, PATH, npm package)",
  GROK_CHECKSUM_MISMATCH: "the decompressed npm binary does not match its recorded sha256",
  GROK_VERSION_UNPINNED: "the npm platform package has a version with no recorded sha256",
  GROK_PROBE_FAILED: "grok --version or grok models did not run or printed nothing usable",
  GROK_SPAWN_FAILED: "the grok process could not be started",
  GROK_REAPER_FAILED: "the reaper process that ends an agent's tree if its owner dies could not be started",
  GROK_EXITED: "the grok process exited while it was needed",
  GROK_DISPOSE_SURVIVORS: "processes of the session's tree were still alive after dispose killed it",
  // acp/ — the protocol
  ACP_HANDSHAKE_FAILED: "initialize, authenticate or session/new failed",
  ACP_NOT_AUTHENTICATED: "grok advertised no auth method we can use",
  ACP_PROMPT_FAILED: "session/prompt failed (error response or connection lost)",
  ACP_STOP_REASON: "the turn ended with an abnormal stop reason and no text",
  ACP_TURN_TIMEOUT: "the turn exceeded its overall time limit and was cancelled",
  ACP_IDLE_TIMEOUT: "the turn produced no update within the idle limit and was cancelled",
  ACP_SESSION_DEAD: "the session was disposed or never came up",
  ACP_MCP_NOT_READY: "MCP servers did not report initialized within the limit",
  ACP_CONTENT_UNSUPPORTED: "a prompt carried content (image, audio) the agent does not advertise",
  ACP_PROTOCOL_ERROR: "a message from the agent broke the protocol",
  ACP_PROMPT_INVALID: "prompt() was given input or options of the wrong shape; nothing was sent",
  ACP_PROMPT_ABORTED: "the prompt's AbortSignal was already aborted; nothing was sent",
  ACP_SESSION_DISPOSED: "the session was disposed while the turn ran; the turn was cancelled",
  ACP_CALLBACK_STUCK: "an embedder callback did not return in time and was abandoned",
  // runtime/ — the headless seat
  SESSION_OPTIONS_INVALID: "createSession was given options that are not an object",
  MODEL_UNKNOWN: "the requested model is not in the agent's catalogue (grok's session/new models); nothing was sent",
  // agents/ — agent profiles
  AGENT_NOT_FOUND: "no built-in agent profile has that name",
  AGENT_NOT_INSTALLED: "the agent's pinned package (or the Node it needs) is not installed",
  AGENT_MODEL_UNSUPPORTED: "a model was requested for an agent that takes none (a custom agent)",
  AGENT_INSTALL_FAILED: "`seat agents install` could not install an agent (npm missing, failed or unreachable)",
  AGENT_COMMAND_INVALID:
    "a custom agent's command line (--agent-command) is empty, ends with a lone backslash or has an unclosed quote",
  // tools/ — host tools bridge
  TOOL_BRIDGE_FAILED: "the host-tools bridge could not start; its MCP entry was omitted",
  TOOL_INVALID_ARGS: "tool arguments failed validation against the original schema",
  TOOL_NOT_FOUND: "no host tool with that name",
  TOOL_EXECUTE_FAILED: "a host tool threw while executing",
  TOOL_SCHEMA_INVALID:
    "a host tool's name or input schema could not be used (bad name, duplicate, schema that does not compile)",
  TOOL_MCP_SERVER_INVALID: "an operator MCP server entry could not be reshaped to the ACP wire format",
  // skills/
  SKILL_INVALID: "a skill directory is missing SKILL.md, has bad frontmatter or escapes its root",
  // permissions/
  PERMISSION_DENIED: "the permission gate refused a tool call",
  PERMISSION_APPROVER_FAILED: "the permission hook or approver threw or answered nonsense; the call was denied",
  PERMISSION_POLICY_INVALID: "a permission policy (flags or file) could not be parsed",
  PERMISSION_NO_APPROVER:
    "a tool call needed approval and nobody could be asked (no approver, no gate), so it was denied",
  // approvals/ — held approvals
  APPROVAL_TIMEOUT: "a held approval reached its deadline unanswered, so the call was denied",
  APPROVAL_NOT_FOUND: "no pending or recent approval has that id",
  APPROVAL_ALREADY_ANSWERED: "the approval was already answered; the first answer stands",
  APPROVAL_EXPIRED: "the approval's turn ended (or its deadline passed) before this answer",
  APPROVAL_ANSWER_INVALID: "an answer to an approval is malformed (decision must be allow or deny; an id is url-safe)",
  APPROVAL_TARGET_CHANGED:
    "an answer carried a digest that is not the held call's exact target; nothing was answered or run",
  APPROVAL_LINK_USED: "an approve/deny link from a notification was already used once; nothing was answered or run",
  APPROVAL_LINK_EXPIRED:
    "an approve/deny link from a notification is past its approval's deadline; nothing was answered or run",
  APPROVAL_LINK_INVALID:
    "an approve/deny link's signature does not verify (altered, cut, or signed with another key); nothing was answered or run",
  // mux/
  MUX_UNAVAILABLE: "the multiplexer is not installed or not reachable",
  MUX_COMMAND_FAILED: "a multiplexer command failed",
  HERDR_PROTOCOL_ERROR: "the Herdr socket answered something outside its protocol",
  HERDR_AGENT_REFUSED: "Herdr's agent fields are null, contradictory or changed",
  // leader/
  LEADER_SOCKET_GONE: "the leader socket is missing, closed or refused the connection",
  LEADER_FRAME_INVALID: "a leader frame had a bad length, was truncated or was not JSON",
  LEADER_PROTOCOL_ERROR: "the leader answered outside protocol 1 (error frame, missing control_v1)",
  LEADER_VERSION_REFUSED: "grok, its leader or its agent is below the floor or disagree on the version",
  LEADER_TIMEOUT: "the leader did not answer (register, control or ping) within the limit",
  LEADER_CONTROL_FAILED: "a leader control command answered Err",
  // identity/
  IDENTITY_MISMATCH: "the process on the other end is not the one we proved",
  IDENTITY_UNKNOWN: "identity could not be established; unknown never authorizes",
  // journal/
  JOURNAL_CORRUPT: "the delivery journal has an unknown schema or broken rows",
  JOURNAL_STATE_INVALID: "a delivery transition is not allowed from its current state",
  JOURNAL_BUSY:
    "another process held the journal's write lock past the bounded wait; nothing is wrong with the file, retry",
  JOURNAL_WRITE_FAILED:
    "the journal could not be written (disk full, read-only file, I/O error); what needed the write was not done",
  // seat/
  PRIVATE_DIR_REFUSED:
    "a directory that must be a private 0700 directory of this user (seat home, socket directory) is not (symlink, wider mode, other owner); nothing in it was used",
  CONTROL_SOCKET_UNTRUSTED: "a control socket path is not a socket owned by this user; it was not used",
  CONTROL_SOCKET_FAILED:
    "a run's control socket could not start, so seat approve/deny/cancel cannot reach that run (the turn goes on)",
  SEAT_NOT_FOUND: "no seat with that id in the journal",
  SEAT_REFUSED: "readiness checks refused the seat (catalog tools, model, effort)",
  SEAT_NOT_ADMITTED: "the leader was not created by this controller with the original pane proof",
  SEAT_RELEASE_REFUSED: "release may not stop the leader: the original TUI has not been seen to exit",
  SEAT_BRIEF_INVALID:
    "a brief sent to the controller is empty, whitespace only, or carries NUL / C0 control characters",
  SEAT_RESTORE_CONFLICT:
    "another process restored or released the seat since it was found lost; this restore launched nothing",
  SEAT_NOT_LOST: "seat restore was asked for a seat or session that is not lost (it is live, released or unknown)",
  SEAT_RESTORE_ENV_MISSING:
    "seat restore found a secret variable the seat was hired with (hire.json names it) unset in this environment; nothing was launched",
  SEAT_CONTROLLER_TIMEOUT: "the seat's controller did not answer a control request within the limit",
  SEAT_CONTROLLER_FAILED:
    "the seat's controller failed or refused without a coded reason (its log is named in the context)",
  SEAT_HIRE_FAILED: "`seat hire` could not be started, or ended without a coded answer",
  SEAT_ID_INVALID: "a seat id is not 1 to 64 letters, digits, - and _",
  SEAT_CONTROL_REQUEST_INVALID: "a request to the seat's controller is not JSON or names an operation it does not know",
  SEAT_SOCKET_UNUSABLE:
    "a visible seat's socket path is too long for sun_path, lies inside $GROK_HOME or sits in a directory that is not private",
  SEAT_USER_HOME_INVALID: "HOME is unset or not an absolute path, so a visible seat has no home to start from",
  // health/
  MODEL_UNREACHABLE: "grok kept retrying its model request (fail-fast limit reached); the turn was cancelled",
  // sessions/ — named headless sessions
  SESSION_BUSY: "another live process holds the named session's lease (a turn is running)",
  SESSION_NOT_RESUMABLE: "the recorded agent session cannot be resumed or loaded; no fresh session was started",
  SESSION_NOT_FOUND: "no named session with that name in this scope",
  SESSION_NAME_INVALID: "a session name is empty, too long or has characters outside [A-Za-z0-9._-]",
  SESSION_IDLE: "the named session has no running turn to cancel",
  SESSION_CLOSE_FAILED: "the agent did not close the named session (session/close failed or timed out)",
  SESSION_PROMPT_ID_REUSED: "a named session's turn was given a prompt id already in its journal; nothing was sent",
  SESSION_TURN_UNRECORDED:
    "a named session's turn ended but the journal could not record its end (it stays running until reclaimed)",
  SESSION_SOCKET_PATH_TOO_LONG:
    "no control socket path for the named session fits sun_path (seat home and TMPDIR both too long)",
  SESSION_CANCEL_TIMEOUT: "the named session's holder did not answer a cancel request within the limit",
  RUN_NOT_FOUND: "no live plain run of this user has the id given (seat ps lists the runs and their ids)",
  RUN_CANCEL_REFUSED: "a plain run's control socket refused the cancel request",
  RUN_IDLE: "the plain run has no running turn (neither working nor waiting) to cancel; nothing was sent",
  RUN_ID_AMBIGUOUS: "more than one live plain run answers with the id given; nothing was sent",
  // turn/ — the supervised turn
  TURN_CANCELLED_UNSENT: "a supervised turn's signal was aborted before its prompt was sent; nothing ran",
  TURN_CLOSED: "a supervised turn's send() was called after close() started; nothing was sent",
  TURN_ALREADY_SENT:
    "a supervised turn's send() was called a second time; one turn sends one prompt (nothing was sent)",
  // control/ — the control socket a turn serves
  CONTROL_REQUEST_INVALID: "a control socket request does not fit the control schema; it did nothing",
  CONTROL_OP_UNSERVED:
    "a control socket was asked an operation its holder does not serve (a run without a state answer)",
  // fleet/ — BullMQ on Redis
  FLEET_REDIS_UNAVAILABLE:
    "Redis could not be reached at the given URL (a login it refused is FLEET_REDIS_AUTH_FAILED)",
  FLEET_REDIS_URL_INVALID: "a Redis URL could not be parsed (redis://[:password@]host[:port][/db])",
  FLEET_JOB_INVALID: "a fleet job's data is missing its prompt or carries options of the wrong shape",
  FLEET_JOB_NOT_FOUND: "no fleet job with that id (never submitted, or expired after it ended)",
  FLEET_JOB_TAMPERED:
    "a fleet job's spec differs from the digest its submitter recorded, or its signature does not verify with the worker's fleet key; it was never run",
  FLEET_JOB_UNSIGNED:
    "a fleet job carries no submitter's digest, or no signature while the worker has a fleet key (GROK_SEAT_FLEET_KEY); it was never run",
  FLEET_JOB_UNCERTAIN:
    "the job's worker died after the prompt was dispatched; it may have reached the model and is never re-sent",
  FLEET_TOOLS_INVALID: "a --tools module could not be loaded or does not export HostTool objects",
  FLEET_REDIS_SERVER_FAILED: "the test rig could not start redis-server (not installed, or it exited)",
  FLEET_REDIS_PORT_TAKEN: "the test rig's port is answered by another redis-server, not the one it started",
  FLEET_REPLICATION_UNCONFIRMED:
    "a fleet job's dispatch mark was not acknowledged in time by every replica that could be promoted; its prompt was not sent and the job ended uncertain (replication-unconfirmed)",
  FLEET_SUBMIT_UNCONFIRMED:
    "a fleet job was queued but the replicas that could be promoted did not acknowledge it in time; a failover could still lose it",
  FLEET_SENTINEL_UNREACHABLE:
    "no sentinel of a redis+sentinel:// URL answered (none running there, or the sentinel password is wrong)",
  FLEET_SENTINEL_MASTER_UNKNOWN:
    "the sentinels of a redis+sentinel:// URL answered but monitor no master of the given name",
  FLEET_REDIS_VOLATILE:
    "the fleet's Redis may lose acknowledged writes (appendonly not yes, or appendfsync not always); a worker refuses it unless --allow-volatile-redis",
  FLEET_REDIS_TLS_FAILED:
    "the TLS handshake with the fleet's rediss:// Redis failed (certificate not signed by the CA given, name mismatch, client certificate required or refused, or not a TLS port)",
  FLEET_REDIS_AUTH_FAILED:
    "the fleet's Redis refused the login (WRONGPASS: wrong password, unknown or disabled ACL user; NOAUTH: none given)",
  FLEET_REDIS_FORBIDDEN:
    "the fleet's Redis refused a command to this ACL user (NOPERM): its role does not allow that command, key or channel",
  FLEET_REDIS_TLS_FILE_UNREADABLE:
    "a Redis TLS CA, client certificate or key file (GROK_SEAT_REDIS_CA/_CERT/_KEY) does not exist, cannot be read or is not PEM",
  FLEET_REDIS_TLS_CONFIG_INVALID:
    "Redis TLS settings that do not fit: a CA/certificate/key for a redis:// URL, or a client certificate without its key (or the reverse)",
  FLEET_KEY_INVALID:
    "the fleet key (GROK_SEAT_FLEET_KEY) is shorter than the minimum length; nothing was signed or sent",
  FLEET_BUDGET_INVALID: "a worker budget is not <N>tokens/<hour|day> or <USD>usd/<hour|day> with N above 0",
  // worktrees/ — one git worktree per seat
  WORKTREE_NOT_A_REPO: "the directory a seat worktree was asked from is not inside a git worktree",
  WORKTREE_NAME_INVALID:
    'a worktree name is not one safe path segment and ref component ([A-Za-z0-9._-], no "..", no .lock)',
  WORKTREE_EXISTS: "the branch seat/<name> already exists and neither --reuse nor the same owner asked for it",
  WORKTREE_BRANCH_GONE:
    "a seat worktree's record names a branch seat/<name> that no longer exists; discard the record and start again",
  WORKTREE_BASE_INVALID: "the base ref does not name a commit (or the repository has no commit yet)",
  WORKTREE_NOT_FOUND: "no seat worktree with that name in this repository",
  WORKTREE_GIT_MISSING: "git is not installed or older than the version worktrees need",
  WORKTREE_GIT_FAILED: "a git command failed (its command, exit code and stderr tail are in the context)",
  WORKTREE_DIRTY:
    "a worktree has uncommitted changes where a clean one is needed (the user's before merge, the seat's before discard)",
  WORKTREE_DETACHED: "the user's worktree is not on a branch, so there is nothing to merge into",
  WORKTREE_CONFLICT: "merging (or rebasing) the seat's branch conflicts; nothing was changed in the user's tree",
  WORKTREE_NOT_FAST_FORWARD:
    "--ff-only (or --rebase's final step) cannot fast-forward the user's branch; nothing was changed",
  WORKTREE_BUSY: "another live process works in that seat worktree (its lock is held); two seats never share one",
  WORKTREE_RECORD_CORRUPT: "a worktree record under the seat home has an unknown schema",
  WORKTREE_MERGE_WOULD_OVERWRITE:
    "merging would write over untracked or ignored paths in the target tree (named); nothing was changed",
  WORKTREE_MERGE_TARGET_INVALID:
    "the worktree a merge was asked to land in belongs to another repository or is the seat's own",
  // usage/
  BUDGET_EXCEEDED:
    "the turn's usage went over its budget; it was cancelled (the text so far is kept), or, for a fleet job, never dispatched",
  BUDGET_UNMETERED:
    "a budget was given for an agent that does not report the usage it limits; nothing was sent (allowUnmetered / --allow-unmetered runs anyway)",
  SESSION_BUDGET_INVALID: "a named session's budget is not a positive number of tokens or USD; nothing was started",
  PRICES_INVALID:
    "the price file could not be read, is not JSON, or gives a model a price that is not a number of USD per million tokens",
  USAGE_DATE_INVALID: "a date bound of a usage query is not a date (YYYY-MM-DD or ISO 8601)",
  // cli/
  CLI_USAGE: "the command line could not be understood",
  CLI_CONFIG_INVALID:
    "a grok-seat config file (user config.json or project .grok-seat.json) is not valid JSON or has a bad key",
  // board/
  BOARD_UNSAFE_ADDRESS:
    "the board was asked to listen on an address other machines reach without a token from GROK_SEAT_BOARD_TOKEN",
  BOARD_LISTEN_FAILED: "the board could not listen on its address and port (in use, or not an address of this machine)",
  BOARD_LINK_KEY_UNSAFE:
    "the seat home's approval-link signing key is not a private 0600 file of this user (or cannot be read or made)",
  BOARD_TOKEN_INVALID: "the board's token (option or GROK_SEAT_BOARD_TOKEN) is shorter than 16 characters",
  BOARD_FORM_TOO_LARGE: "a form posted to the board is larger than it accepts; nothing was answered",
  // notify/ — notifications
  NOTIFY_CONFIG_INVALID:
    "the config file's notify section is malformed (a target's type, url, secret, command or events)",
  NOTIFY_TARGET_UNKNOWN: "--notify (or the notify option) names a target the config does not define",
  NOTIFY_DELIVERY_FAILED:
    "a notification could not be delivered to a target after its retries; the turn was not affected",
  // mcp/ — the seat as an MCP server
  MCP_ARGUMENT_INVALID:
    "an MCP tool call's arguments do not fit the tool's input schema (a wrong type, a missing or unknown field)",
  MCP_CWD_OUTSIDE_ROOTS:
    "an MCP tool call's cwd does not exist or lies outside every --root and every root the client declared",
  MCP_AGENT_NOT_ALLOWED: "an MCP tool call asked for an agent the server was not started to allow (--agents)",
  MCP_POLICY_WIDENING:
    "an MCP tool call's allow list names a category the server's policy does not allow; a caller can only narrow it",
  MCP_CALL_CANCELLED:
    "an MCP tool call was cancelled (notifications/cancelled, or the host went away) before its turn was sent; nothing ran",
  MCP_TOOL_UNKNOWN: "an MCP tool call named a tool this server does not serve",
  MCP_RUNS_LIMIT: "an MCP run call came while the server already ran as many as --max-runs allows; nothing started",
  MCP_OPTIONS_INVALID: "the MCP server was created with options out of range (a run limit below 1)",
} as const;

/** A stable SCREAMING_SNAKE error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The specific values behind an error: paths, pids, commands, exit codes, stderr tails. */
export type ErrorContext = Record<string, unknown>;

/** Options for a SeatError beyond code and message. */
export interface SeatErrorOptions {
  context?: ErrorContext;
  retryable?: boolean;
  cause?: unknown;
}

// A registered symbol, so a SeatError made by another copy of grok-seat in this process still counts: the `seat`
// bin is a bundle holding its own copy, and a worker's tools module that imports the library brings the other.
const SEAT_ERROR = Symbol.for("grok-seat.SeatError");

/**
 * The one error class of grok-seat. `message` says what happened, the facts, and the next step;
 * the code is appended in brackets so a log line alone identifies it. `instanceof SeatError` (and isSeatError)
 * holds for a SeatError of any copy of grok-seat loaded in this process.
 */
export class SeatError extends Error {
  readonly code: ErrorCode;
  readonly context: ErrorContext;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, options: SeatErrorOptions = {}) {
    // Errors are redacted at birth: no secret value reaches a message, context, log or `--json`.
    super(`${redactText(message)} [${code}]`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SeatError";
    this.code = code;
    this.context = redact(options.context ?? {});
    this.retryable = options.retryable ?? false;
  }

  /** A plain object for `--json` output and audit logs (no stack, no cause chain). */
  toJSON(): { code: ErrorCode; message: string; context: ErrorContext; retryable: boolean } {
    return { code: this.code, message: this.message, context: this.context, retryable: this.retryable };
  }

  /** True for a SeatError of this or another copy of grok-seat (by the registered brand, not the prototype). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[SEAT_ERROR] === true;
  }
}
// On the prototype, not each instance: the brand is not an own property (inspect, deepEqual and JSON see none).
Object.defineProperty(SeatError.prototype, SEAT_ERROR, { value: true });

/** True when `value` is a SeatError, optionally with the given code. */
export function isSeatError(value: unknown, code?: ErrorCode): value is SeatError {
  return value instanceof SeatError && (code === undefined || value.code === code);
}

/** The message of any thrown value, without assuming it is an Error. */
export function messageOf(value: unknown): string {
  if (value instanceof Error) return redactText(value.message);
  if (typeof value === "string") return redactText(value);
  try {
    return redactText(JSON.stringify(value));
  } catch {
    return redactText(String(value));
  }
}
