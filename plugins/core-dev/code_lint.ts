/**
 * code_lint: runs the project's linter.
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
import DESCRIPTION from "./code_lint.md" with { type: "text" };

/** code_lint's registration: a command run, gated by `tool_permission.bash`. */
export const codeLintSpec = {
  name: "code_lint",
  description: DESCRIPTION,
  parameters: DEV_PARAMETERS,
  category: "exec",
  permission: "bash",
  deno: DEV_DENO_NEEDS,
  isolation: commandIsolation,
  verb: "Lint",
  status: (args, ctx) => previewDevCommand("lint", args, ctx),
} satisfies ToolSpec<typeof DEV_PARAMETERS>;

/** Runs dev.lint_cmd or the detected command and reports exit status, summary and output. */
export function runLinter(args: DevArgs, ctx: ToolContext): Promise<string> {
  return runDevCommand("lint", args, ctx);
}
