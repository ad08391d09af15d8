/*
 * Skill rules: the `_meta.rules` paragraph that tells the model which skills and tools this session has.
 * Owns: rulesText(), pure.
 * Does not own: staging (staging.ts) or the host-tool naming paragraph (tools/ toolRulesText).
 */

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
