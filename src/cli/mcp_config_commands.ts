/**
 * The commander definitions of `replio mcp add|list|get|remove`, added under `replio mcp` by
 * program.ts. Their actions (mcp_config.ts) load only when one runs.
 * @module
 */
import type { Command } from "commander";

const ADD_HELP = `
Examples:
  replio mcp add fetch -- uvx mcp-server-fetch
  replio mcp add github --env GITHUB_PERSONAL_ACCESS_TOKEN=ghp_… -- npx -y @modelcontextprotocol/server-github
  replio mcp add linear --url https://mcp.linear.app/mcp
  replio mcp add internal --url https://mcp.internal.example/mcp --bearer-token-env-var INTERNAL_MCP_TOKEN
  replio mcp add notes --project -- deno run -A notes_server.ts

Writes mcp_servers.NAME in the global config (~/.config/replio/config.yaml), or in the
worktree's .replio/config.yaml with --project, keeping the file's comments.`;

/** Collects a repeatable option's values. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Adds add, list, get and remove under `mcp`; `setExitCode` receives each one's exit code. */
export function addMcpConfigCommands(mcp: Command, setExitCode: (code: number) => void): void {
  mcp.command("add")
    .description("add an MCP server to mcp_servers: -- COMMAND ARGS (stdio) or --url URL (http)")
    .argument("<name>", "the server's name; its tools become mcp__<name>__<tool>")
    .argument("[command...]", "after --: the command that starts the server on stdio")
    .option("--url <url>", "a remote server's URL (Streamable HTTP, or HTTP+SSE)")
    .option(
      "-H, --header <K=V>",
      "with --url: a header sent with every request (repeatable)",
      collect,
    )
    .option("--bearer-token-env-var <VAR>", "with --url: send $VAR as Authorization: Bearer")
    .option(
      "-e, --env <K=V>",
      "with a command: a variable set for the server (repeatable)",
      collect,
    )
    .option("--project", "write the worktree's .replio/config.yaml instead of the global config")
    .option("--force", "replace an entry of the same name")
    .option("--path <dir>", "worktree (default: the current directory)")
    .addHelpText("after", ADD_HELP)
    .exitOverride()
    .action(async (name: string, command: string[], options) => {
      const { runMcpAdd } = await import("./mcp_config.ts");
      setExitCode(await runMcpAdd(name, command, options));
    });
  mcp.command("list")
    .description("list the configured MCP servers: transport, command or URL, file, status")
    .option("--json", "print JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--trust", "show the project's servers as a trusted folder would load them")
    .exitOverride()
    .action(async (options) => {
      const { runMcpList } = await import("./mcp_config.ts");
      setExitCode(await runMcpList(options));
    });
  mcp.command("get")
    .description("show one MCP server's settings in full (secret values redacted)")
    .argument("<name>", "the server's name in mcp_servers")
    .option("--json", "print JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--trust", "show the project's servers as a trusted folder would load them")
    .exitOverride()
    .action(async (name: string, options) => {
      const { runMcpGet } = await import("./mcp_config.ts");
      setExitCode(await runMcpGet(name, options));
    });
  mcp.command("remove")
    .description("remove an MCP server from the global config (or the project's)")
    .argument("<name>", "the server's name in mcp_servers")
    .option("--project", "remove it from the worktree's .replio/config.yaml")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (name: string, options) => {
      const { runMcpRemove } = await import("./mcp_config.ts");
      setExitCode(await runMcpRemove(name, options));
    });
}
