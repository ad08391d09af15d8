import { test } from "node:test";
import assert from "node:assert/strict";
import { hasAskEveryCommandRule } from "./unasked.js";

test('finds the ask-every-command rule only inside [permission] as a bare "Bash" entry', () => {
  assert.equal(hasAskEveryCommandRule('[permission]\nask = ["Bash"]\n'), true);
  assert.equal(
    hasAskEveryCommandRule(
      '[cli]\nauto_update = false\n\n[permission]\nallow = ["Bash(git *)"]\nask = [\n  "Edit",\n  "Bash",\n]\n',
    ),
    true,
  );
  assert.equal(hasAskEveryCommandRule("[permission]\nask = ['Bash']\n"), true);
  assert.equal(
    hasAskEveryCommandRule('[permission]\nask = ["Bash(git *)"]\n'),
    false,
    "a narrow rule leaves other commands unasked",
  );
  assert.equal(hasAskEveryCommandRule('[permission]\nallow = ["Bash"]\n'), false);
  assert.equal(
    hasAskEveryCommandRule('[other]\nask = ["Bash"]\n'),
    false,
    "outside [permission] it means nothing to grok",
  );
  assert.equal(hasAskEveryCommandRule('[permission]\ndeny = ["Bash(rm *)"]\n[ui]\nask = ["Bash"]\n'), false);
  assert.equal(hasAskEveryCommandRule(""), false);
});
