/*
 * Skill staging: a session-scoped grok plugin dir holding the bundled grok-seat skill plus operator skills.
 * Owns: stageSkills() → `<tmp>/<plugin>/plugin.json` + `skills/<name>/SKILL.md` (+ each skill's other files).
 * Does not own: passing the dir to grok (runtime/ uses `--plugin-dir` and `_meta.pluginDirs`) or rules text (rules.ts).
 * Invariants: a skill root must hold SKILL.md with a valid name and description; names are unique; a symlink
 *   whose target leaves its skill root is refused (SKILL_INVALID naming the path), never followed; a failed
 *   staging leaves nothing behind; cleanup() is idempotent.
 * Spec: docs grok-wire §11.
 */
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { builtFile } from "../internal/package-files.js";
import { removePrivateDir } from "../internal/private-dir.js";
import { SKILL_NAME, parseFrontmatter } from "./frontmatter.js";

/** Options of stageSkills. */
export interface StageSkillsOptions {
  /** Extra skill roots, each a directory with SKILL.md at its top. */
  additionalSkillPaths?: readonly string[];
  /** Include the bundled grok-seat skill (default true). */
  includeBundled?: boolean;
  /** Plugin name written to plugin.json and used as the dir name (default "grok-seat-session"). */
  pluginName?: string;
  /** Directory to create the temp dir in (default: the OS temp dir). */
  tempRoot?: string;
}

/** A staged plugin dir: its absolute path, the skill names in it, and how to remove it. */
export interface StagedSkills {
  dir: string;
  skillNames: string[];
  /** Removes the staged dir; safe to call more than once. */
  cleanup(): void;
}

/** The directory of the bundled grok-seat skill (copied into dist/src/skills/ by the build). */
export const BUNDLED_SKILL_DIR = builtFile("src", "skills", "bundled", "grok-seat");

function invalid(path: string, problem: string, cause?: unknown): SeatError {
  return new SeatError(
    "SKILL_INVALID",
    `Skill path ${path} ${problem}. Fix or remove that skill root and stage again.`,
    {
      context: { path },
      cause,
    },
  );
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** Copies `from` (a directory inside `root`) to `to`, refusing symlinks that leave `root`. */
function copyTree(root: string, from: string, to: string, visited: Set<string>): void {
  visited.add(realpathSync(from));
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    let real = source;
    if (lstatSync(source).isSymbolicLink()) {
      try {
        real = realpathSync(source);
      } catch (error) {
        throw invalid(source, "is a symlink whose target does not exist", error);
      }
      if (!isInside(root, real)) throw invalid(source, "is a symlink that escapes its skill root");
    }
    const stat = statSync(real);
    if (stat.isDirectory()) {
      if (visited.has(real)) continue; // a symlink loop back into the tree: its contents are copied once
      copyTree(root, real, target, visited);
    } else if (stat.isFile()) {
      copyFileSync(real, target);
    }
  }
}

/** Checks a skill root and returns its real path and frontmatter name. */
function inspectRoot(path: string): { real: string; name: string } {
  let real: string;
  try {
    real = realpathSync(resolve(path));
    if (!statSync(real).isDirectory()) throw new Error("not a directory");
  } catch (error) {
    throw invalid(path, `is not a readable directory (${messageOf(error)})`, error);
  }
  const skillFile = join(real, "SKILL.md");
  let text: string;
  try {
    const fileReal = realpathSync(skillFile);
    if (!isInside(real, fileReal)) throw invalid(skillFile, "is a symlink that escapes its skill root");
    text = readFileSync(fileReal, "utf8");
  } catch (error) {
    if (error instanceof SeatError) throw error;
    throw invalid(path, "has no SKILL.md", error);
  }
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) throw invalid(skillFile, parsed.problem);
  return { real, name: parsed.value.name };
}

/**
 * Stages the bundled skill and each additional skill root into a fresh plugin dir.
 * Throws SKILL_INVALID (naming the path) for a bad root, bad frontmatter, a duplicate name or an escaping symlink.
 */
export function stageSkills(options: StageSkillsOptions = {}): StagedSkills {
  const pluginName = options.pluginName ?? "grok-seat-session";
  if (!SKILL_NAME.test(pluginName)) {
    throw new SeatError(
      "SKILL_INVALID",
      `Plugin name ${JSON.stringify(pluginName)} must match ^[a-z0-9-]{1,64}$ without leading or trailing "-".`,
      {
        context: { pluginName },
      },
    );
  }
  const roots = [
    ...(options.includeBundled === false ? [] : [BUNDLED_SKILL_DIR]),
    ...(options.additionalSkillPaths ?? []),
  ];
  const seen = new Map<string, string>();
  const inspected = roots.map((path) => {
    const found = inspectRoot(path);
    const earlier = seen.get(found.name);
    if (earlier !== undefined) throw invalid(path, `declares skill name "${found.name}", already used by ${earlier}`);
    seen.set(found.name, path);
    return found;
  });

  const parent = mkdtempSync(join(options.tempRoot ?? tmpdir(), "grok-seat-skills-"));
  let removed = false;
  const cleanup = (): void => {
    if (removed) return;
    removed = true;
    removePrivateDir(parent);
  };
  const dir = join(parent, pluginName);
  try {
    mkdirSync(join(dir, "skills"), { recursive: true });
    const manifest = { name: pluginName, version: "1.0.0", description: "Session-scoped skills staged by grok-seat." };
    writeFileSync(join(dir, "plugin.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    for (const { real, name } of inspected) copyTree(real, real, join(dir, "skills", name), new Set());
  } catch (error) {
    cleanup();
    throw error;
  }
  return { dir, skillNames: inspected.map((s) => s.name), cleanup };
}
