import { test } from "node:test";
import assert from "node:assert/strict";
import { parseFrontmatter } from "./frontmatter.js";
import { rulesText } from "./rules.js";

test("reads name and description, quoted or as a folded block", () => {
  assert.deepEqual(parseFrontmatter("---\nname: hello-skill\ndescription: Says hello.\n---\nBody"), {
    ok: true,
    value: { name: "hello-skill", description: "Says hello." },
  });
  const folded = "---\nname: 'x1'\ndescription: >\n  first line\n  second line\nmetadata:\n  nested: yes\n---\n";
  assert.deepEqual(parseFrontmatter(folded), {
    ok: true,
    value: { name: "x1", description: "first line second line" },
  });
  assert.deepEqual(parseFrontmatter('---\r\nname: "a-b"\r\ndescription: "quoted: yes"\r\n---\r\n'), {
    ok: true,
    value: { name: "a-b", description: "quoted: yes" },
  });
});

test("refuses a missing block, an unclosed block, a bad name and a missing description", () => {
  const cases: Array<[string, RegExp]> = [
    ["# no frontmatter", /does not start/],
    ["---\nname: a\n", /never closed/],
    ["---\ndescription: d\n---\n", /no frontmatter name/],
    ["---\nname: Hello_Skill\ndescription: d\n---\n", /"Hello_Skill"/],
    [`---\nname: ${"a".repeat(65)}\ndescription: d\n---\n`, /lowercase/],
    ["---\nname: -lead\ndescription: d\n---\n", /"-lead"/],
    ["---\nname: ok\n---\n", /no frontmatter description/],
  ];
  for (const [text, pattern] of cases) {
    const result = parseFrontmatter(text);
    assert.equal(result.ok, false, text);
    if (!result.ok) assert.match(result.problem, pattern);
  }
});

test("rules text names the skills and the host tool count", () => {
  const text = rulesText(["grok-seat", "deploy"], 3);
  assert.match(text, /grok-seat, deploy/);
  assert.match(text, /3 host tools/);
  assert.equal(rulesText([], 0), "");
  assert.match(rulesText([], 1), /1 host tool over MCP/);
});
