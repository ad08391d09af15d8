/*
 * Skill frontmatter: reads `name` and `description` from the YAML block at the top of a SKILL.md.
 * Owns: parseFrontmatter() and the skill-name rule, both pure.
 * Does not own: files (staging.ts reads them).
 * Invariant: only the subset grok's skills use is understood — top-level `key: value` (plain or quoted)
 *   and `|` / `>` block scalars; nested keys are skipped. A missing block, name or description is refused.
 * Spec: docs grok-wire §11 (name ≤ 64, lowercase/digits/hyphens).
 */

/** A valid skill (and plugin) name: lowercase letters, digits and hyphens, 1–64, no leading/trailing hyphen. */
export const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** The frontmatter fields grok-seat needs from a SKILL.md. */
export interface SkillFrontmatter {
  name: string;
  description: string;
}

/** Parsed frontmatter, or the reason it is unusable. */
export type FrontmatterResult = { ok: true; value: SkillFrontmatter } | { ok: false; problem: string };

function unquote(raw: string): string {
  const value = raw.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  return value.replace(/\s+#.*$/, "");
}

function fields(block: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < block.length; i++) {
    const match = /^([A-Za-z0-9_-]+):(.*)$/.exec(block[i]!);
    if (!match) continue;
    const key = match[1]!;
    const rest = match[2]!.trim();
    if (rest === "|" || rest === ">" || rest === "|-" || rest === ">-") {
      const lines: string[] = [];
      while (i + 1 < block.length && (/^\s+\S/.test(block[i + 1]!) || block[i + 1]!.trim() === ""))
        lines.push(block[++i]!.trim());
      out.set(key, rest.startsWith("|") ? lines.join("\n").trim() : lines.filter(Boolean).join(" "));
    } else {
      out.set(key, unquote(rest));
    }
  }
  return out;
}

/** Parses the frontmatter of a SKILL.md text and checks `name` and `description`. */
export function parseFrontmatter(text: string): FrontmatterResult {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return { ok: false, problem: "does not start with a --- frontmatter block" };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (end < 0) return { ok: false, problem: "has a frontmatter block that is never closed with ---" };
  const values = fields(lines.slice(1, end));
  const name = values.get("name");
  const description = values.get("description");
  if (!name) return { ok: false, problem: "has no frontmatter name" };
  if (!SKILL_NAME.test(name)) {
    return {
      ok: false,
      problem: `has frontmatter name ${JSON.stringify(name)}; use 1-64 lowercase letters, digits and hyphens`,
    };
  }
  if (!description) return { ok: false, problem: "has no frontmatter description" };
  return { ok: true, value: { name, description } };
}
