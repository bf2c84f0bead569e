/**
 * The tool system: registry, policy, the Deno permission layer, result shaping and the one
 * invoke pipeline.
 * @module
 */
export { describeActivity, plainActivity } from "./activity.ts";
export type { PermissionRecord } from "./audit.ts";
export { capResult, capResultKept, TRUNCATED_MARKER } from "./cap_result.ts";
export {
  formatBytes,
  type KeptOutput,
  omittedNote,
  OUTPUT_STORE_SERVICE,
  OutputStore,
  type OutputStoreOptions,
  OutputWriter,
} from "./output_store.ts";
export { createToolContext, type ToolContextOptions } from "./context.ts";
export {
  assertPathAccess,
  canReadEnv,
  denoDenial,
  denoNeedsOf,
  missingGrants,
  modelHostOf,
  netGrantKind,
  readGrantedEnv,
} from "./deno_permissions.ts";
export { callFingerprint, canonicalJson } from "./call_fingerprint.ts";
export {
  type AnswerableCall,
  type GivenAnswer,
  type InvokeOptions,
  type InvokeOutcome,
  invokeTool,
  type ToolRequest,
} from "./invoke.ts";
export { toolIsolation } from "./isolation.ts";
export {
  BUILTIN_MODES,
  type HeadlessAnswer,
  modeNames,
  type ModeSpec,
  type Policy,
  type PolicyOptions,
  type PolicyResolution,
  type PolicyStep,
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
export { readOnlyEvidence } from "./read_only.ts";
export { isInside, resolveToolPath } from "./resolve_path.ts";
export { summarizeTool } from "./summarize_tool.ts";
export type * from "./types.ts";
export { type ToolNameList, unknownToolNames } from "./unknown_tool_names.ts";
export { validateArgs } from "./validate_args.ts";
