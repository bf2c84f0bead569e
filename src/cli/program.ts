/**
 * The commander program: every subcommand, its options and help text. Actions import their
 * module on use and set `program.exitCode`.
 * @module
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { VERSION } from "../version.ts";

const EXAMPLES = `
Examples:
  replio                                   open the REPL in the current directory
  replio run "explain src/main.ts"         one headless turn, answer on stdout
  echo "fix the tests" | replio run --yes  prompt from stdin, allow ask-gated tools
  replio tool file_read '{"path":"README.md"}'
  replio tools --mode plan                 what the plan mode allows
  replio config set tool_permission.bash allow
  replio sessions list

Exit codes: 0 ok, 1 the turn or tool failed, 2 usage or configuration error,
3 denied or declined by policy (tool), 130 cancelled.
Docs: docs/ in the repository (tools.md, config.md, session.md, security.md).`;

function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  }
  return n;
}

/** Builds the program; commander's own exits are turned into exceptions (exit 2, not 1). */
export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command("replio")
    .description("A terminal AI agent: a model acts through tools, every call passes one policy.")
    .version(`replio ${VERSION}`, "-V, --version", "print the version")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--mode <mode>", "mode to start in (default, plan, accept-edits, or one from config)")
    .option("--permission-mode <mode>", "the same as --mode (e.g. accept-edits)")
    .option("--model <model>", "model name")
    .option("--base-url <url>", "OpenAI-compatible endpoint URL")
    .option("--session <id>", "continue or create this session")
    .option("-c, --continue", "continue the latest session in this worktree")
    .option("-r, --resume", "pick a session to resume from a list")
    .addHelpText("after", EXAMPLES)
    .exitOverride()
    // Subcommands repeat --mode and --path; without this the root would take them.
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    // The root runs the REPL, so commander would not add `help` itself: `replio help run` is
    // `replio run --help`, as git and npm have it.
    .helpCommand("help [command]", "show help for a command")
    .action(async (options) => {
      const { runRepl } = await import("./repl.ts");
      setExitCode(await runRepl({ ...options, mode: options.mode ?? options.permissionMode }));
    });

  program.command("run")
    .description("run one headless turn: prompt from the argument or stdin")
    .argument("[prompt...]", "the prompt (read from stdin when absent)")
    .addOption(
      new Option("--output <format>", "output format").choices(["text", "json", "stream-json"])
        .default("text"),
    )
    .option("--yes", "allow ask-gated tools without asking")
    .option("--no", "deny ask-gated tools (the default)")
    .option("--model <model>", "model name")
    .option("--base-url <url>", "OpenAI-compatible endpoint URL")
    .option("--session <id>", "continue or create this session")
    .option("-c, --continue", "continue the latest session in this worktree")
    .option("--mode <mode>", "mode for this turn")
    .option("--permission-mode <mode>", "the same as --mode (e.g. accept-edits)")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--max-rounds <n>", "end the turn after N model rounds", parsePositiveInt)
    .exitOverride()
    .action(async (prompt: string[], options) => {
      const { runHeadless } = await import("./run.ts");
      setExitCode(
        await runHeadless(prompt.join(" "), {
          ...options,
          mode: options.mode ?? options.permissionMode,
        }),
      );
    });

  program.command("tool")
    .description("run one tool through the policy, as /tool does")
    .argument("<name>", "tool name (aliases work)")
    .argument("[json]", "arguments as a JSON object", "{}")
    .option("--yes", "allow an ask-gated call")
    .option("--no", "deny an ask-gated call (the default)")
    .option("--json", "print {tool, output, is_error, decision, permissions} as JSON")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--path <dir>", "worktree (default: the current directory)")
    .addHelpText(
      "after",
      `\nExamples:\n  replio tool file_read '{"path":"README.md","limit":20}'\n  replio tool run_command '{"command":"ls"}' --yes`,
    )
    .exitOverride()
    .action(async (name: string, json: string, options) => {
      const { runToolCommand } = await import("./tool.ts");
      setExitCode(await runToolCommand(name, json, options));
    });

  program.command("tools")
    .description("list tools with category, permission and the current action")
    .option("--json", "print JSON")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { listTools } = await import("./tools.ts");
      setExitCode(await listTools(options));
    });

  program.command("mcp")
    .description("serve the tools to an MCP client over stdio (docs/mcp.md)")
    .option("--yes", "allow ask-gated calls")
    .option("--no", "deny ask-gated calls (the default)")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { runMcpServer } = await import("./mcp.ts");
      setExitCode(await runMcpServer(options));
    });

  program.command("serve")
    .description("serve the local HTTP API (docs/serve.md)")
    .option("--host <host>", "address to bind; not loopback needs REPLIO_SERVE_TOKEN", "127.0.0.1")
    .option("--port <port>", "port to listen on; 0 picks any free port", "8787")
    .option("--yes", "allow ask-gated tools without asking")
    .option("--no", "deny ask-gated tools (the default)")
    .option("--mode <mode>", "mode for tools and turns that name none")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--model <model>", "model name")
    .option("--base-url <url>", "OpenAI-compatible endpoint URL")
    .exitOverride()
    .action(async (options) => {
      const { runServer } = await import("./serve.ts");
      setExitCode(await runServer(options));
    });

  program.command("agents")
    .description("list agent types for delegate (built-in, config, .replio/agents/*.md)")
    .option("--json", "print JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { listAgents } = await import("./agents.ts");
      setExitCode(await listAgents(options));
    });

  program.command("config")
    .description("get, set or unset configuration (local .replio/config.yaml by default)")
    .argument("<action>", "get | set | unset")
    .argument("[key]", "dotted key, e.g. tool_permission.bash")
    .argument("[value]", "YAML or JSON value (for set)")
    .option("--global", "use the global file (~/.config/replio/config.yaml)")
    .option("--show-origin", "show where each value comes from")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (action: string, key: string | undefined, value: string | undefined, options) => {
      const { runConfigCommand } = await import("./config.ts");
      setExitCode(await runConfigCommand(action, key, value, options));
    });

  const sessions = program.command("sessions")
    .description("list or show saved sessions")
    .exitOverride();
  sessions.command("list")
    .description("list sessions, newest first")
    .option("--json", "print [{id, created, updated, turns, size, lastPrompt, …}] as JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { listSessions } = await import("./sessions.ts");
      setExitCode(await listSessions(options));
    });
  sessions.command("show")
    .description("show one session")
    .argument("<id>", "session id")
    .option("--json", "print {messages, permissions, errors} as JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (id: string, options) => {
      const { showSession } = await import("./sessions.ts");
      setExitCode(await showSession(id, options));
    });

  return program;
}
