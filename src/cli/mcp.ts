/**
 * `replio mcp`: serve the tools to an MCP client (another agent) over stdio, headless.
 * @module
 */
import { serveMcp } from "../mcp/mod.ts";
import { VERSION } from "../version.ts";
import { EXIT } from "./errors.ts";
import { openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";

/** Options of `replio mcp`. */
export interface McpCommandOptions {
  yes?: boolean;
  no?: boolean;
  mode?: string;
  path?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
}

/** Serves until the client closes stdin; exit 0. */
export async function runMcpServer(options: McpCommandOptions): Promise<number> {
  // initialize is answered at once: configured servers that are still starting announce
  // their tools with tools/list_changed when they are up.
  const ws = await openWorkspace({ ...options, headless: options, mcpWait: 0 });
  if (Deno.stdin.isTerminal()) {
    // Someone typed `replio mcp` by hand: without this it just sits there.
    await Deno.stderr.write(
      new TextEncoder().encode(
        "replio mcp speaks MCP on stdin and stdout: start it from an MCP client (docs/mcp.md)\n",
      ),
    );
  }
  // Each command finds its shell (and sandbox) started while the model was thinking.
  await using _spareShells = keepSpareShells({ waitForExit: false });
  await serveMcp({ ...ws, version: VERSION });
  return EXIT.ok;
}
