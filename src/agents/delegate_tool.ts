/**
 * The `delegate` core tool: runs a task under an agent type as a sub-agent. Its permission
 * resolves per type (spec/tools.md §Tool policy): built-in types keep the base action, a
 * configured type uses its own `tool_permission.delegate` (default ask), an unknown type is deny.
 * @module
 */
import { Type } from "../schema/type.ts";
import {
  defineTool,
  type PermissionContext,
  type Resolution,
  type ToolArgs,
} from "../plugins/api.ts";
import type { AgentType } from "./agent_types.ts";
import DESCRIPTION from "./delegate.md" with { type: "text" };
import type { DelegateRunner } from "./delegate_runner.ts";
import { AGENT_TYPES_SERVICE, DELEGATE_SERVICE } from "./services.ts";
import { lowerResolution } from "./intersect_policy.ts";

const parameters = Type.Object({
  agent_type: Type.String({ description: "Agent type: explore, general, or a configured type" }),
  task: Type.String({ description: "What the sub-agent must do and report back", minLength: 1 }),
  context: Type.Optional(Type.String({ description: "Facts the sub-agent needs" })),
});

/** Resolves the delegate action for one agent type. */
function resolveDelegate(args: ToolArgs, ctx: PermissionContext): Resolution {
  const types = ctx.services[AGENT_TYPES_SERVICE] as ReadonlyMap<string, AgentType> | undefined;
  const runner = ctx.services[DELEGATE_SERVICE] as DelegateRunner | undefined;
  const type = types?.get(String(args.agent_type));
  if (!runner) return { action: "deny", reason: "delegate needs a model: not available here" };
  if (!type) {
    return { action: "deny", reason: `agent type "${String(args.agent_type)}" is not registered` };
  }
  if (!runner.canDelegate) return { action: "deny", reason: "max_delegate_depth" };
  if (type.source === "built-in") return ctx.base;
  const own = type.toolPermission.delegate;
  const action = typeof own === "string" ? own : "ask";
  return lowerResolution(ctx.base, {
    action,
    reason: `agent ${type.name}: tool_permission.delegate`,
  }, type.name);
}

/** The delegate tool. */
export const delegateTool = defineTool(
  {
    name: "delegate",
    description: DESCRIPTION,
    parameters,
    category: "delegate",
    permission: "delegate",
    // A sub-agent talks to the model; its tools are judged one by one under the same grants.
    deno: { model: true },
    permissionFn: resolveDelegate,
    keyArg: "agent_type",
    short: "Run a task under an agent type as a sub-agent",
  },
  async (
    { agent_type, task, context }: { agent_type: string; task: string; context?: string },
    ctx,
  ) => {
    const runner = ctx.services[DELEGATE_SERVICE] as DelegateRunner | undefined;
    if (!runner) {
      throw new Error(
        "Cannot delegate here: no agent runner in this context: do the task yourself",
      );
    }
    return await runner.run({ agentType: agent_type, task, context, signal: ctx.signal });
  },
);
