/**
 * The policy an agent type runs under: the parent's policy intersected with the type's own
 * `tool_permission` and `tools` settings, so a type can only narrow what its parent may do.
 * @module
 */
import type { Config } from "../config/mod.ts";
import { type Policy, ToolPolicy } from "../tools/mod.ts";
import type { AgentType } from "./agent_types.ts";
import { IntersectedPolicy } from "./intersect_policy.ts";

/** `base` narrowed by `type`: each call gets the stricter of the two answers. */
export function agentTypePolicy(base: Policy, config: Config, type: AgentType): Policy {
  const overrides: Record<string, unknown> = {
    "tools.allow": type.tools.allow,
    "tools.deny": type.tools.deny,
  };
  for (const [key, value] of Object.entries(type.toolPermission)) {
    overrides[`tool_permission.${key}`] = value;
  }
  const own = new ToolPolicy({
    config: config.with(overrides),
    worktree: base.worktree,
    mode: "default",
    headless: base.headless,
  });
  return new IntersectedPolicy(base, own, type.name);
}
