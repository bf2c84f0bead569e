/**
 * The tool system: registry, policy, the Deno permission layer, result shaping and the one
 * invoke pipeline.
 * @module
 */
export { describeActivity, plainActivity } from "./activity.ts";
export type { PermissionRecord } from "./audit.ts";
export { capResult, TRUNCATED_MARKER } from "./cap_result.ts";
export { createToolContext, type ToolContextOptions } from "./context.ts";
export { assertPathAccess, denoDenial } from "./deno_permissions.ts";
export { type InvokeOptions, type InvokeOutcome, invokeTool, type ToolRequest } from "./invoke.ts";
export {
  BUILTIN_MODES,
  type HeadlessAnswer,
  modeNames,
  type ModeSpec,
  type Policy,
  type PolicyOptions,
  type PolicyResolution,
  ToolPolicy,
} from "./policy.ts";
export {
  errorResult,
  type PreparedCall,
  ToolCallError,
  ToolRegistry,
  type ToolResult,
} from "./registry.ts";
export { type ApprovalRule, describeRule, SessionApprovals } from "./approvals.ts";
export { isInside, resolveToolPath } from "./resolve_path.ts";
export { summarizeTool } from "./summarize_tool.ts";
export type * from "./types.ts";
export { validateArgs } from "./validate_args.ts";
