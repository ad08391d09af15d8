import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compareVersions, parseGrokVersion } from "./version.js";

test("parses the live 1.0.41 version line with and without a trailing newline", () => {
  assert.deepEqual(parseGrokVersion("grok 1.0.41 (4220f3b224a6)\n"), { version: "1.0.41", sha: "4220f3b224a6" });
  assert.deepEqual(parseGrokVersion("grok 1.0.41 (4220f3b224a6)"), { version: "1.0.41", sha: "4220f3b224a6" });
});

test("parses a cached channel suffix", () => {
  assert.deepEqual(parseGrokVersion("grok 1.0.41 (4220f3b224a6) [stable]\n"), {
    version: "1.0.41",
    sha: "4220f3b224a6",
    channel: "stable",
  });
  assert.equal(parseGrokVersion("grok 1.0.41 (4220f3b224a6) [alpha]")?.channel, "alpha");
});

test("rejects garbage, other products and extra lines", () => {
  for (const s of [
    "",
    "\n",
    "grok",
    "grok 1.0 (abc1234)",
    "grok-cli 1.0.41 (4220f3b224a6)",
    "grok 1.0.41",
    "Error: No such device",
    "grok 1.0.41 (4220f3b224a6)\nextra",
    "grok 1.0.41 (4220f3b224a6) [stable",
    " grok 1.0.41 (4220f3b224a6)",
  ]) {
    assert.equal(parseGrokVersion(s), null, JSON.stringify(s));
  }
});

test("parseGrokVersion never throws on arbitrary strings", () => {
  fc.assert(
    fc.property(fc.string(), (s) => {
      const r = parseGrokVersion(s);
      return r === null || typeof r.version === "string";
    }),
  );
});

test("parseGrokVersion roundtrips generated version lines", () => {
  const part = fc.integer({ min: 0, max: 999 });
  const hex = fc.stringMatching(/^[0-9a-f]{12}$/);
  const channel = fc.option(fc.constantFrom("stable", "alpha", "beta"), { nil: undefined });
  fc.assert(
    fc.property(part, part, part, hex, channel, fc.boolean(), (a, b, c, sha, ch, nl) => {
      const version = `${a}.${b}.${c}`;
      const line = `grok ${version} (${sha})${ch ? ` [${ch}]` : ""}${nl ? "\n" : ""}`;
      const expected = ch ? { version, sha, channel: ch } : { version, sha };
      assert.deepEqual(parseGrokVersion(line), expected);
    }),
  );
});

test("compareVersions orders numerically and puts pre-releases first", () => {
  assert.equal(compareVersions("1.0.41", "1.0.41"), 0);
  assert.ok(compareVersions("1.0.5", "1.0.41") < 0);
  assert.ok(compareVersions("1.0.41", "0.2.93") > 0);
  assert.ok(compareVersions("1.1.0-rc.1", "1.1.0") < 0);
  fc.assert(
    fc.property(fc.tuple(fc.nat(50), fc.nat(50), fc.nat(50)), fc.tuple(fc.nat(50), fc.nat(50), fc.nat(50)), (x, y) => {
      const a = x.join("."),
        b = y.join(".");
      return Math.sign(compareVersions(a, b)) === -Math.sign(compareVersions(b, a));
    }),
  );
});
