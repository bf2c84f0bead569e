/**
 * code_test: runs the project's test suite.
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
import DESCRIPTION from "./code_test.md" with { type: "text" };

/** code_test's registration: a command run, gated by `tool_permission.bash`. */
export const codeTestSpec = {
  name: "code_test",
  description: DESCRIPTION,
  parameters: DEV_PARAMETERS,
  category: "exec",
  permission: "bash",
  deno: DEV_DENO_NEEDS,
  isolation: commandIsolation,
  verb: "Test",
  status: (args, ctx) => previewDevCommand("test", args, ctx),
} satisfies ToolSpec<typeof DEV_PARAMETERS>;

/** Runs dev.test_cmd or the detected command and reports exit status, summary and output. */
export function runTests(args: DevArgs, ctx: ToolContext): Promise<string> {
  return runDevCommand("test", args, ctx);
}
