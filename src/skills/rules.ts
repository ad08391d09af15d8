/*
 * Skill rules: the `_meta.rules` paragraph that tells the model which skills and tools this session has.
 * Owns: rulesText(), pure; skillsRulesBody(), the skills' own text for agents without plugin dirs.
 * Does not own: staging (staging.ts) or the host-tool naming paragraph (tools/ toolRulesText).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StagedSkills } from "./staging.js";

/** A short paragraph naming the staged skills and the number of host tools, for `_meta.rules`. */
export function rulesText(skillNames: readonly string[], toolCount: number): string {
  const parts: string[] = [];
  if (skillNames.length > 0) {
    parts.push(
      `Skills staged for this session: ${skillNames.join(", ")}. Load a skill when its description fits the task.`,
    );
  }
  if (toolCount > 0) {
    parts.push(
      `The orchestrator serves ${toolCount} host tool${toolCount === 1 ? "" : "s"} over MCP; call them through use_tool with their qualified <server>__<tool> names.`,
    );
  }
  return parts.join(" ");
}

/** How much of one SKILL.md goes into the rules of an agent without native skills. */
const SKILL_TEXT_LIMIT = 20_000;

/**
 * The rules text for an agent without plugin dirs: each staged skill's SKILL.md, in full up to a bound,
 * under a heading naming it.
 */
export function skillsRulesBody(staged: Pick<StagedSkills, "dir" | "skillNames">): string {
  const parts = staged.skillNames.map((name) => {
    let text = readFileSync(join(staged.dir, "skills", name, "SKILL.md"), "utf8");
    if (text.length > SKILL_TEXT_LIMIT) text = `${text.slice(0, SKILL_TEXT_LIMIT)}\n[skill text truncated]`;
    return `## Skill: ${name}\n\n${text.trim()}`;
  });
  return parts.length
    ? `Skills for this session (follow one when its description fits the task):\n\n${parts.join("\n\n")}`
    : "";
}
