/**
 * A sub-agent can never do more than its parent may: its effective policy is the intersection
 * (the lower action) of the parent's and its agent type's.
 * @module
 */
import type { Policy, PolicyResolution } from "../tools/policy.ts";
import type { Action, Resolution, Tool, ToolArgs } from "../tools/types.ts";

const RANK: Record<Action, number> = { deny: 0, ask: 1, allow: 2 };

/**
 * The lower of two resolutions; on a tie the parent's reason is kept.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const lower = lowerResolution({ action: "allow", reason: "a" }, { action: "deny", reason: "b" }, "explore");
 * assert.deepEqual(lower, { action: "deny", reason: "agent explore: b" });
 * ```
 */
export function lowerResolution<R extends Resolution>(parent: R, child: R, agentType: string): R {
  return RANK[child.action] < RANK[parent.action]
    ? { ...child, reason: `agent ${agentType}: ${child.reason}` }
    : parent;
}

/** The parent's policy intersected with the agent type's. */
export class IntersectedPolicy implements Policy {
  constructor(
    private readonly parent: Policy,
    private readonly child: Policy,
    private readonly agentType: string,
  ) {}

  get worktree(): string {
    return this.parent.worktree;
  }
  get mode(): string {
    return this.parent.mode;
  }
  get headless() {
    return this.parent.headless;
  }
  get modeInstructions(): string {
    return this.parent.modeInstructions;
  }

  resolveStatic(tool: Tool): Resolution {
    return lowerResolution(
      this.parent.resolveStatic(tool),
      this.child.resolveStatic(tool),
      this.agentType,
    );
  }

  isVisible(tool: Tool): boolean {
    return this.resolveStatic(tool).action !== "deny";
  }

  async resolve(
    tool: Tool,
    args: ToolArgs,
    services: Readonly<Record<string, unknown>> = {},
  ): Promise<PolicyResolution> {
    const [parent, child] = await Promise.all([
      this.parent.resolve(tool, args, services),
      this.child.resolve(tool, args, services),
    ]);
    return lowerResolution(parent, child, this.agentType);
  }
}
