// Staging a session plugin dir from real skill directories on disk.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { stageSkills } from "../../../src/skills/index.js";

function withTemp(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "gs-skills-"));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function skill(root: string, name: string, extra: Record<string, string> = {}): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: The ${name} skill.\n---\nDo ${name} things.\n`,
  );
  for (const [file, text] of Object.entries(extra)) {
    mkdirSync(join(dir, file, ".."), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

function expectInvalid(run: () => unknown, pathPart: string, pattern: RegExp): void {
  assert.throws(run, (e) => isSeatError(e, "SKILL_INVALID") && e.message.includes(pathPart) && pattern.test(e.message));
}

test("stages the bundled skill and additional roots into a plugin dir, and cleanup is idempotent", () => {
  withTemp((root) => {
    const deploy = skill(join(root, "src"), "deploy", { "scripts/run.sh": "echo hi\n" });
    const staged = stageSkills({ additionalSkillPaths: [deploy], tempRoot: root });
    try {
      assert.deepEqual(staged.skillNames, ["grok-seat", "deploy"]);
      assert.deepEqual(JSON.parse(readFileSync(join(staged.dir, "plugin.json"), "utf8")).name, "grok-seat-session");
      assert.match(
        readFileSync(join(staged.dir, "skills", "grok-seat", "SKILL.md"), "utf8"),
        /^---\nname: grok-seat\n/,
      );
      assert.equal(readFileSync(join(staged.dir, "skills", "deploy", "scripts", "run.sh"), "utf8"), "echo hi\n");
    } finally {
      staged.cleanup();
    }
    assert.equal(existsSync(staged.dir), false);
    staged.cleanup();
  });
});

test("copies a symlink that stays inside its root and refuses one that escapes, naming it and leaving nothing behind", () => {
  withTemp((root) => {
    const inside = skill(join(root, "src"), "inside", { "docs/guide.md": "guide\n" });
    symlinkSync(join(inside, "docs", "guide.md"), join(inside, "guide-link.md"));
    const staged = stageSkills({ additionalSkillPaths: [inside], includeBundled: false, tempRoot: root });
    assert.equal(readFileSync(join(staged.dir, "skills", "inside", "guide-link.md"), "utf8"), "guide\n");
    staged.cleanup();

    writeFileSync(join(root, "secret.txt"), "secret\n");
    const escaping = skill(join(root, "src"), "escaping");
    symlinkSync(join(root, "secret.txt"), join(escaping, "leak.txt"));
    const out = join(root, "out");
    mkdirSync(out);
    expectInvalid(
      () => stageSkills({ additionalSkillPaths: [escaping], tempRoot: out }),
      "leak.txt",
      /escapes its skill root/,
    );
    assert.deepEqual(readFileSync(join(root, "secret.txt"), "utf8"), "secret\n");
    assert.equal(readdirSync(out).length === 0, true, "a failed staging leaves nothing behind");
  });
});

test("refuses a root without SKILL.md, bad frontmatter and duplicate names, naming the path", () => {
  withTemp((root) => {
    const empty = join(root, "empty");
    mkdirSync(empty);
    expectInvalid(() => stageSkills({ additionalSkillPaths: [empty], tempRoot: root }), empty, /has no SKILL\.md/);

    const bad = join(root, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "SKILL.md"), "---\nname: Bad Name\ndescription: x\n---\n");
    expectInvalid(
      () => stageSkills({ additionalSkillPaths: [bad], tempRoot: root }),
      join(bad, "SKILL.md"),
      /"Bad Name"/,
    );

    const one = skill(join(root, "a"), "twin");
    const two = skill(join(root, "b"), "twin");
    expectInvalid(() => stageSkills({ additionalSkillPaths: [one, two], tempRoot: root }), two, /already used by/);
    const clash = skill(join(root, "c"), "grok-seat");
    expectInvalid(() => stageSkills({ additionalSkillPaths: [clash], tempRoot: root }), clash, /"grok-seat"/);
    expectInvalid(() => stageSkills({ pluginName: "Bad_Plugin", tempRoot: root }), "", /Bad_Plugin/);
  });
});
