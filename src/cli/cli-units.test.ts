/*
 * CLI pieces without I/O: exit codes, flag parsing, policy layering, output snippets.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { createPolicy } from "../permissions/index.js";
import { countFlag, listFlag, optionalNumberFlag, parseFlags, rewriteFlag, secondsFlag } from "./args.js";
import { EXIT, exitCodeFor, humanLine, paletteFor, toolOutputSnippet } from "./output.js";
import { layerPolicies } from "./policy.js";

test("codes split out of CLI_USAGE, SEAT_REFUSED and SESSION_BUSY keep the exit status of what they mean", () => {
  for (const code of [
    "AGENT_COMMAND_INVALID",
    "SEAT_ID_INVALID",
    "SEAT_USER_HOME_INVALID",
    "SEAT_CONTROL_REQUEST_INVALID",
    "USAGE_DATE_INVALID",
    "FLEET_BUDGET_INVALID",
    "FLEET_KEY_INVALID",
    "BOARD_TOKEN_INVALID",
    "MCP_OPTIONS_INVALID",
  ] as const)
    assert.equal(exitCodeFor(code), EXIT.usage, code);
  for (const code of [
    "PRIVATE_DIR_REFUSED",
    "CONTROL_SOCKET_UNTRUSTED",
    "SEAT_SOCKET_UNUSABLE",
    "SEAT_CONTROLLER_FAILED",
    "SEAT_HIRE_FAILED",
  ] as const)
    assert.equal(exitCodeFor(code), EXIT.seatRefused, code);
  // A holder that did not answer a cancel is a timeout, not a busy session.
  assert.equal(exitCodeFor("SESSION_CANCEL_TIMEOUT"), EXIT.timeout);
});

test("error codes map to the documented exit codes", () => {
  assert.equal(exitCodeFor("CLI_USAGE"), EXIT.usage);
  assert.equal(exitCodeFor("GROK_NOT_FOUND"), 3);
  assert.equal(exitCodeFor("ACP_NOT_AUTHENTICATED"), 4);
  assert.equal(exitCodeFor("PERMISSION_POLICY_INVALID"), 5);
  assert.equal(exitCodeFor("IDENTITY_MISMATCH"), 6);
  assert.equal(exitCodeFor("MUX_UNAVAILABLE"), 7);
  assert.equal(exitCodeFor("ACP_IDLE_TIMEOUT"), 124);
  assert.equal(exitCodeFor("ACP_PROMPT_FAILED"), 1);
  assert.equal(exitCodeFor("MODEL_UNREACHABLE"), 124);
  assert.equal(exitCodeFor("CLI_CONFIG_INVALID"), 2);
  assert.equal(exitCodeFor("SESSION_NAME_INVALID"), 2);
  assert.equal(EXIT.brokenPipe, 141);
});

test("--fail-fast takes an optional count: alone (last, or before a flag) it means the default, a number right after it is the count", () => {
  const spec = { "fail-fast": { type: "string" as const }, json: { type: "boolean" as const } };
  const parse = (argv: string[]) => parseFlags("run", optionalNumberFlag("run", argv, "fail-fast", 3), spec);
  const beforeFlag = parse(["--fail-fast", "--json", "say hello"]);
  assert.equal(countFlag("run", beforeFlag, "fail-fast"), 3);
  assert.deepEqual(beforeFlag.positionals, ["say hello"]);
  assert.equal(countFlag("run", parse(["--json", "--fail-fast", "5", "hi"]), "fail-fast"), 5);
  assert.equal(countFlag("run", parse(["hi", "--fail-fast"]), "fail-fast"), 3);
  assert.equal(countFlag("run", parse(["--fail-fast=7", "hi"]), "fail-fast"), 7);
  assert.equal(countFlag("run", parse(["hi"]), "fail-fast"), undefined);
  assert.deepEqual(parse(["--", "--fail-fast"]).positionals, ["--fail-fast"]);
  for (const bad of ["0", "-1", "two", "1.5"]) {
    assert.throws(
      () => countFlag("run", parse([`--fail-fast=${bad}`, "hi"]), "fail-fast"),
      (e) => isSeatError(e, "CLI_USAGE") && /fail-fast/.test(e.message),
      bad,
    );
  }
});

test("rewriteFlag rewrites each named flag before a lone --, swallowing the next word only when asked, and keeps the rest", () => {
  const seen: Array<[string, string | undefined]> = [];
  const out = rewriteFlag(
    ["a", "--x", "1", "--y", "--x", "--z=2", "--x", "--", "--x", "3"],
    ["--x", "--y"],
    (flag, next) => {
      seen.push([flag, next]);
      if (flag === "--y") return null;
      return next !== undefined && /^\d+$/.test(next)
        ? { value: next, consumesNext: true }
        : { value: "", consumesNext: false };
    },
  );
  assert.deepEqual(out, ["a", "--x=1", "--y", "--x=", "--z=2", "--x=", "--", "--x", "3"]);
  // The word after the flag, undefined at the end; an inline --x=… and anything after "--" are never offered.
  assert.deepEqual(seen, [
    ["--x", "1"],
    ["--y", "--x"],
    ["--x", "--z=2"],
    ["--x", "--"],
  ]);
  assert.deepEqual(
    rewriteFlag(["--x"], ["--x"], (_f, next) => ({ value: String(next), consumesNext: false })),
    ["--x=undefined"],
  );
  assert.deepEqual(
    rewriteFlag([], ["--x"], () => assert.fail("no flag, no call")),
    [],
  );
  assert.throws(
    () =>
      rewriteFlag(["--x", "bad"], ["--x"], () => {
        throw new Error("refused");
      }),
    /refused/,
  );
});

test("a word after --fail-fast that is not a number is a usage error, never prompt text", () => {
  for (const argv of [
    ["--fail-fast", "abc", "hi"],
    ["--fail-fast", "say hello"],
    ["--fail-fast", "1.5", "hi"],
  ]) {
    assert.throws(
      () => optionalNumberFlag("run", argv, "fail-fast", 3),
      (e) => isSeatError(e, "CLI_USAGE") && e.message.includes(`got "${argv[1]}"`) && /--fail-fast=N/.test(e.message),
      argv.join(" "),
    );
  }
});

test("a refused flag is named in our words: unknown, missing value, switch given a value", () => {
  const spec = {
    json: { type: "boolean" as const },
    model: { type: "string" as const },
    session: { type: "string" as const, short: "s" },
  };
  const message = (argv: string[]) => {
    try {
      parseFlags("run", argv, spec);
    } catch (error) {
      assert.ok(isSeatError(error, "CLI_USAGE"));
      return error.message;
    }
    assert.fail(`accepted ${argv.join(" ")}`);
  };
  assert.match(message(["--frob", "hi"]), /^seat run: unknown flag --frob \(/);
  assert.match(message(["-x", "hi"]), /^seat run: unknown flag -x /);
  assert.match(message(["hi", "--model"]), /^seat run: --model needs a value\./);
  assert.match(message(["--model", "--json", "hi"]), /--model needs a value, got the flag "--json"/);
  assert.match(message(["--json=yes", "hi"]), /--json is a switch and takes no value/);
  assert.match(
    message(["--frob", "hi"]),
    /goes after "--", e\.g\. seat run -- "--frob …"/,
    "a prompt verb hints at --",
  );
  let notPrompt = "";
  try {
    parseFlags("mcp", ["--frob"], spec);
  } catch (error) {
    notPrompt = (error as Error).message;
  }
  assert.match(
    notPrompt,
    /^seat mcp: unknown flag --frob\. See `seat mcp --help`\./,
    "a verb without a prompt gives no prompt hint",
  );
  for (const argv of [["--frob"], ["--json=1"], ["--model"]]) {
    const text = message(argv);
    assert.doesNotMatch(text, /parseArgs|To specify a positional/, argv.join(" "));
    assert.equal((text.match(/'/g) ?? []).length % 2, 0, `balanced quotes: ${text}`);
    assert.equal((text.match(/"/g) ?? []).length % 2, 0, `balanced quotes: ${text}`);
  }
});

test("a retry is one human line naming grok's reason and the attempt", () => {
  const plain = paletteFor({ isTTY: false } as NodeJS.WriteStream);
  const line = humanLine(
    {
      type: "retry",
      attempt: 6,
      max: 15,
      reason: "dns error",
      detail: "dns error: failed to lookup address information",
    },
    plain,
  );
  assert.equal(line, "grok is retrying the model request: dns error (attempt 6/15)");
  assert.equal(
    humanLine({ type: "model_catalog", status: "retrying", attempt: 2, max: 5 }, plain),
    "grok could not refresh its model catalogue (attempt 2/5)",
  );
  assert.match(
    humanLine({ type: "model_catalog", status: "failed", reason: "no models" }, plain) ?? "",
    /gave up .*: no models/,
  );
});

test("flags are parsed strictly: unknown flags and bad numbers are usage errors", () => {
  const spec = {
    json: { type: "boolean" as const },
    t: { type: "string" as const },
    allow: { type: "string" as const, multiple: true },
  };
  const ok = parseFlags("x", ["--json", "--t", "1.5", "--allow", "read,edit", "--allow", " mcp ", "hello"], spec);
  assert.equal(secondsFlag("x", ok, "t"), 1500);
  assert.deepEqual(listFlag(ok, "allow"), ["read", "edit", "mcp"]);
  assert.deepEqual(ok.positionals, ["hello"]);
  assert.throws(
    () => parseFlags("x", ["--nope"], spec),
    (e) => isSeatError(e, "CLI_USAGE") && /--nope/.test(e.message),
  );
  for (const bad of ["-1", "1e3", "soon", ""]) {
    assert.throws(
      () => secondsFlag("x", parseFlags("x", ["--t", bad], spec), "t"),
      (e) => isSeatError(e, "CLI_USAGE"),
      bad,
    );
  }
  assert.equal(secondsFlag("x", parseFlags("x", [], spec), "t", 42), 42);
});

test("flags override a policy file category by category; unrestricted if either says so", () => {
  const file = createPolicy({ allow: ["edit"], block: ["network"] });
  const flags = createPolicy({ ask: ["edit"], unrestricted: true });
  const merged = layerPolicies(file, flags);
  assert.equal(merged.defaults.edit, "require-approval");
  assert.equal(merged.defaults.network, "block");
  assert.equal(merged.unrestricted, true);
  assert.deepEqual([...(merged.configured ?? [])].sort(), ["edit", "network"]);
});

test("a tool's MCP output becomes a one-line snippet", () => {
  assert.equal(toolOutputSnippet({ type: "MCP", output: { OkayOutput: "5\n words" } }), "5 words");
  assert.equal(toolOutputSnippet({ output: "x".repeat(100) })?.length, 80);
  assert.equal(toolOutputSnippet(undefined), undefined);
  assert.equal(toolOutputSnippet({ output: { Other: 1 } }), undefined);
});

test("human output masks known secret values in every line it prints: diagnostics on stderr, answer chunks on stdout", async () => {
  const { createHumanPrinter } = await import("./output.js");
  const { registerSecrets, registerUrlPassword } = await import("../internal/redact.js");
  registerSecrets({ OPENAI_API_KEY: "sk-live-4f9a8b7c6d5e4f3a2b1c" });
  registerUrlPassword("https://bob:pa55word@example.com/", "GROK_SEAT_REDIS_PASSWORD");
  const written: string[] = [];
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  const capture = (chunk: string | Uint8Array) => (written.push(String(chunk)), true);
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  try {
    const printer = createHumanPrinter(paletteFor(process.stderr, { NO_COLOR: "1" }));
    printer.onEvent({
      type: "diagnostic",
      diagnostic: {
        code: "TOOL_EXECUTE_FAILED",
        message: 'Host tool "x" threw: upstream refused: api_key=sk-live-4f9a8b7c6d5e4f3a2b1c',
      },
    });
    printer.onEvent({ type: "text", text: "the url is https://bob:pa55word@example.com/" } as never);
    // The model streams the key in three chunks: joined before masking, so no piece of it is printed.
    for (const text of [" and sk-li", "ve-4f9a8b7c6", "d5e4f3a2b1c done"])
      printer.onEvent({ type: "text", text } as never);
    printer.finish();
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  const all = written.join("");
  assert.ok(!all.includes("sk-live-") && !all.includes("pa55word"), all);
  assert.match(all, /api_key=\[redacted\]/);
  assert.match(all, /https:\/\/bob:\[redacted\]@example\.com\/ and \[redacted\] done\n$/);
});

test("a withdrawn approval prompt says why by its code: answered elsewhere, timed out, or expired with the turn", async () => {
  const { withdrawnNotice } = await import("./run-output.js");
  assert.match(
    withdrawnNotice({ code: "APPROVAL_ALREADY_ANSWERED" }),
    /answered elsewhere first \(APPROVAL_ALREADY_ANSWERED\)/,
  );
  assert.match(withdrawnNotice({ code: "APPROVAL_TIMEOUT" }), /denied \(APPROVAL_TIMEOUT\)/);
  assert.doesNotMatch(withdrawnNotice({ code: "APPROVAL_TIMEOUT" }), /elsewhere/);
  assert.match(withdrawnNotice({ code: "APPROVAL_EXPIRED" }), /turn ended .*\(APPROVAL_EXPIRED\)/);
  assert.doesNotMatch(withdrawnNotice(new Error("approval timed out")), /elsewhere/);
});
