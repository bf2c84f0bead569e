/**
 * code_format: runs the project's formatter over the worktree.
 * @module
 */
import { commandIsolation, type ToolContext, type ToolSpec } from "../../src/plugins/api.ts";
import {
  DEV_DENO_NEEDS,
  DEV_PARAMETERS,
  type DevArgs,
  previewDevCommand,
  runDevCommand,
} from "./_dev_command.ts";
import DESCRIPTION from "./code_format.md" with { type: "text" };

/** code_format's registration: a command run, gated by `tool_permission.bash`. */
export const codeFormatSpec = {
  name: "code_format",
  description: DESCRIPTION,
  parameters: DEV_PARAMETERS,
  category: "exec",
  permission: "bash",
  deno: DEV_DENO_NEEDS,
  isolation: commandIsolation,
  verb: "Format",
  status: (args, ctx) => previewDevCommand("format", args, ctx),
} satisfies ToolSpec<typeof DEV_PARAMETERS>;

/** Runs dev.format_cmd or the detected command and reports exit status, summary and output. */
export function runFormatter(args: DevArgs, ctx: ToolContext): Promise<string> {
  return runDevCommand("format", args, ctx);
}
