/*
 * Skills front door: staging a session-scoped plugin dir and describing it to the model.
 * Owns: the public names of skills/ (listed by hand; adding one is an API decision).
 */
export { parseFrontmatter, SKILL_NAME } from "./frontmatter.js";
export type { FrontmatterResult, SkillFrontmatter } from "./frontmatter.js";
export { BUNDLED_SKILL_DIR, stageSkills } from "./staging.js";
export type { StagedSkills, StageSkillsOptions } from "./staging.js";
export { rulesText, skillsRulesBody } from "./rules.js";
