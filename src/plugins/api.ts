/**
 * The plugin API: everything a plugin (bundled or user) may import from replio.
 * @module
 */
import type { JsonSchema, ToolHandler, ToolSpec } from "../tools/types.ts";

export type {
  Action,
  AskAnswer,
  AskRequest,
  Category,
  DenoNeeds,
  JsonSchema,
  PermissionContext,
  PermissionKey,
  Resolution,
  ToolAlias,
  ToolArgs,
  ToolContext,
  ToolHandler,
  ToolSpec,
} from "../tools/types.ts";
export * from "./run_process.ts";
export { type KeptProcessResult, runProcessKept } from "./kept_output.ts";
export { LIVE_LINES, LiveTail } from "./live_tail.ts";
export {
  formatBytes,
  type KeptOutput,
  OUTPUT_STORE_SERVICE,
  type OutputStore,
} from "../tools/output_store.ts";
export { apiKeyEnvNames, childEnv, isWithheld } from "./child_env.ts";
export { readTextIfExists } from "../fs/read_text_if_exists.ts";
export { shellQuote } from "../tools/shell_quote.ts";
/** Path functions without Node's compatibility layer (src/fs/path.ts). */
export {
  basename,
  delimiter,
  dirname,
  isAbsolute,
  join,
  relative,
  resolve,
  sep,
} from "../fs/path.ts";
/** The schema builder for tool parameters (TypeBox-compatible, see src/schema/type.ts). */
export { type Static, Type } from "../schema/type.ts";
export { runSandboxed, type SandboxedResult } from "./run_sandboxed.ts";
export { bwrapArgs, commandIsolation, planSandbox, type SandboxPlan } from "./sandbox_bwrap.ts";

/** A tool as a plugin exports it: its spec and its handler. */
export interface PluginTool {
  spec: ToolSpec;
  handler: ToolHandler<never>;
}

/** A plugin: a named set of tools. */
export interface Plugin {
  name: string;
  tools: readonly PluginTool[];
}

/**
 * Pairs a spec with its handler, typing the handler's arguments from the schema.
 * @example
 * ```ts
 * import { Type } from "@sinclair/typebox";
 * const echo = defineTool({
 *   name: "echo", description: "Echo text", category: "read", permission: "read",
 *   parameters: Type.Object({ text: Type.String({ description: "Text to echo" }) }),
 * }, ({ text }) => text);
 * ```
 */
export function defineTool<P extends JsonSchema, A = P extends { static: infer S } ? S : never>(
  spec: ToolSpec<P>,
  handler: ToolHandler<A>,
): PluginTool {
  return { spec, handler: handler as ToolHandler<never> };
}

export { type AtomicWriteOptions, writeFileAtomic } from "../fs/write_file_atomic.ts";
export { appendFileNoFollow } from "../fs/append_file.ts";
export { SYNC_IO_MAX_BYTES } from "../fs/sync_io.ts";
