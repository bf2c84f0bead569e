/**
 * The commander program: every subcommand, its options and help text. Actions import their
 * module on use and set `program.exitCode`.
 * @module
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { VERSION } from "../version.ts";
import { rejectCommandTypo, subcommandNames } from "./command_typo.ts";
import { addMetaCommands } from "./meta_commands.ts";
import { addMcpConfigCommands } from "./mcp_config_commands.ts";
import { passRootOptions } from "./root_options.ts";
import { positiveInt, RUN_OPTIONS } from "./run_options.ts";

const EXAMPLES = `
Examples:
  replio                                   open the REPL in the current directory
  replio "explain src/main.ts"             open the REPL and send this first prompt
  replio run "explain src/main.ts"         one headless turn, answer on stdout
  echo "fix the tests" | replio run --yes  prompt from stdin, allow ask-gated tools
  replio tool file_read '{"path":"README.md"}'
  replio tools --mode plan                 what the plan mode allows
  replio permissions                       what Deno granted, what each tool can do, which flags
  replio config set tool_permission.bash allow
  replio trust                             load this folder's .replio/ settings from now on
  replio sessions list
  source <(replio completions bash)        Tab completion (also zsh, fish)

A first word near a command name is taken for a typo: replio sesions list says
"did you mean sessions?". Quote a prompt of several words, or put -- before it.

Exit codes: 0 ok, 1 the turn or tool failed, 2 usage or configuration error,
3 denied or declined by policy (tool), 4 parked for approval (run --park), 130 cancelled.
Docs: docs/ in the repository (tools.md, config.md, session.md, security.md, sandbox.md).`;

function parsePositiveInt(value: string): number {
  const n = positiveInt(value);
  if (n === null) throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
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
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
    .option("-c, --continue", "continue the latest session in this worktree")
    .option("-r, --resume", "pick a session to resume from a list")
    .addHelpText("after", EXAMPLES)
    .exitOverride()
    // Subcommands repeat --mode and --path; without this the root would take them.
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .argument("[prompt...]", "a first prompt for the REPL")
    .hook("preAction", (root, action) => {
      passRootOptions(root, action);
      // Checked before the action, so a parse alone (the docs' test) catches `replio sesions`.
      if (action === root) {
        rejectCommandTypo(
          root.processedArgs[0] ?? [],
          subcommandNames(root),
          // commander keeps the words it parsed in rawArgs, which its typings leave out.
          (root as unknown as { rawArgs: string[] }).rawArgs.includes("--"),
        );
      }
    })
    .action(async (prompt: string[], options) => {
      const { runRepl } = await import("./repl.ts");
      setExitCode(
        await runRepl({
          ...options,
          mode: options.mode ?? options.permissionMode,
          ...(prompt.length ? { prompt: prompt.join(" ") } : {}),
        }),
      );
    });

  const run = program.command("run")
    .description("run one headless turn: prompt from the argument or stdin")
    .argument("[prompt...]", "the prompt (read from stdin when absent)");
  for (const spec of RUN_OPTIONS) {
    const option = new Option(spec.flags, spec.description);
    if (spec.choices) option.choices(spec.choices);
    if (spec.default !== undefined) option.default(spec.default);
    if (spec.positiveInt) option.argParser(parsePositiveInt);
    run.addOption(option);
  }
  run
    .exitOverride()
    .action(async (prompt: string[], options) => {
      const { runHeadless } = await import("./run.ts");
      setExitCode(await runHeadless(prompt.join(" "), options));
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
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
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
    .option("--base-url <url>", "judge tools that need the model against this endpoint")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
    .exitOverride()
    .action(async (options) => {
      const { listTools } = await import("./tools.ts");
      setExitCode(await listTools(options));
    });

  program.command("permissions")
    .alias("doctor")
    .description("what Deno granted this process, what each tool can do, the flags to run with")
    .option("--json", "print JSON")
    .option("--base-url <url>", "the model endpoint to judge against (default: config)")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { printPermissions } = await import("./permissions.ts");
      setExitCode(await printPermissions(options));
    });

  // `replio mcp` and `replio mcp serve` are one command: the same options, the same server.
  const mcpServer = (command: Command) =>
    command
      .option("--http", "serve Streamable HTTP at /mcp instead of stdio (docs/mcp.md)")
      .option("--host <host>", "with --http: address to bind (default 127.0.0.1)")
      .option("--port <port>", "with --http: port (default 8787); 0 picks any free port")
      .option("--yes", "allow ask-gated calls")
      .option("--no", "deny ask-gated calls (the default)")
      .option("--mode <mode>", "mode to resolve the policy under")
      .option("--path <dir>", "worktree (default: the current directory)")
      .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
      .exitOverride()
      .action(async (options) => {
        const { runMcpServer } = await import("./mcp.ts");
        setExitCode(await runMcpServer(options));
      });
  const mcp = mcpServer(
    program.command("mcp")
      .description("serve the tools to an MCP client over stdio or HTTP (docs/mcp.md)"),
  );
  mcpServer(mcp.command("serve").description("the same as replio mcp"));
  mcp.command("login")
    .description("log in to a remote server of mcp_servers with OAuth (docs/mcp.md)")
    .argument("<name>", "the server's name in mcp_servers")
    .option("--no-browser", "print the login URL instead of opening a browser")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
    .exitOverride()
    .action(async (name: string, options) => {
      const { runMcpLogin } = await import("./mcp_login.ts");
      setExitCode(await runMcpLogin(name, options));
    });
  mcp.command("logout")
    .description("forget the OAuth login of a remote server of mcp_servers")
    .argument("<name>", "the server's name in mcp_servers")
    .exitOverride()
    .action(async (name: string) => {
      const { runMcpLogout } = await import("./mcp_login.ts");
      setExitCode(await runMcpLogout(name));
    });
  addMcpConfigCommands(mcp, setExitCode);

  program.command("serve")
    .description("serve the local HTTP API (docs/serve.md)")
    .option("--host <host>", "address to bind; not loopback needs REPLIO_SERVE_TOKEN", "127.0.0.1")
    .option("--port <port>", "port to listen on; 0 picks any free port", "8787")
    .option("--yes", "allow ask-gated tools without asking")
    .option("--no", "deny ask-gated tools (the default)")
    .option("--mode <mode>", "mode for tools and turns that name none")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
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
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
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
    .option("--trust", "load this folder's .replio/ settings for this run (see replio trust)")
    .exitOverride()
    .action(async (action: string, key: string | undefined, value: string | undefined, options) => {
      const { runConfigCommand } = await import("./config.ts");
      setExitCode(await runConfigCommand(action, key, value, options));
    });

  const policy = program.command("policy")
    .description("test a policy change against recorded sessions (docs/policy.md)")
    .exitOverride();
  policy.command("test")
    .description(
      "re-resolve recorded tool calls under the current (or a proposed) config; exit 1 if looser",
    )
    .option("--against <session...>", "session ids or files to test against")
    .option("--all", "every session of the worktree")
    .option("--config <file>", "a proposed config file, in place of .replio/config.yaml")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--json", "print the report as JSON")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { runPolicyTest } = await import("./policy.ts");
      setExitCode(await runPolicyTest(options.against ?? [], options));
    });

  policy.command("explain")
    .description("how the policy resolves one call, step by step, with the settings that decided")
    .argument("<tool>", "tool name (aliases work)")
    .argument("[json]", "the call's arguments as a JSON object", "{}")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--json", "print {tool, steps, action, reason, ...} as JSON")
    .option("--trust", "load this folder's .replio/ settings for this run")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (tool: string, json: string, options) => {
      const { runPolicyExplain } = await import("./policy.ts");
      setExitCode(await runPolicyExplain(tool, json, options));
    });

  program.command("approve")
    .description("approve the call a `run --park` is waiting on (docs/approvals.md)")
    .argument("<session>", "session id")
    .option("--call <id>", "the parked call (default: the one waiting)")
    .option("--always-prefix", "also allow later commands with the same prefix in the resumed turn")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (session: string, options) => {
      const { answerParked } = await import("./parked.ts");
      setExitCode(await answerParked("granted", session, options));
    });

  program.command("deny")
    .description("deny the call a `run --park` is waiting on; the model gets the reason")
    .argument("<session>", "session id")
    .option("--call <id>", "the parked call (default: the one waiting)")
    .option("--reason <text>", "why, passed on to the model")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (session: string, options) => {
      const { answerParked } = await import("./parked.ts");
      setExitCode(await answerParked("declined", session, options));
    });

  program.command("replay")
    .description("re-run a recorded session's tool calls and compare the results (docs/replay.md)")
    .argument("<session>", "session id or .jsonl file")
    .option("--here", "run in the worktree itself, not in a scratch copy")
    .option("--update", "re-record the session with today's results")
    .option("--show", "render the replay as the REPL would, instead of the comparison")
    .option("--json", "print the comparison as JSON")
    .option("--mode <mode>", "mode to resolve the policy under")
    .option("--path <dir>", "worktree (default: the current directory)")
    .option(
      "--trust",
      "trust this folder for this run: its .replio/ settings load and the recording's answers count",
    )
    .exitOverride()
    .action(async (session: string, options) => {
      const { runReplay } = await import("./replay.ts");
      setExitCode(await runReplay(session, options));
    });

  program.command("trust")
    .description(
      "trust a folder: its .replio/ settings, agents and plugins load (docs/security.md)",
    )
    .argument("[path]", "folder to trust, with everything beneath it (default: the current one)")
    .option("--list", "list the trusted folders")
    .option("--remove <path>", "stop trusting a folder")
    .addHelpText(
      "after",
      `
A folder's .replio/config.yaml, .replio/agents/ and .replio/plugins/ are the repository's,
not yours: until you trust the folder only tools.deny and stricter tool_permission actions
from them apply. Trusted folders are kept in trusted_folders of the global config.

Examples:
  replio trust                   trust the current worktree
  replio trust ~/src             trust every folder under ~/src
  replio trust --list
  replio trust --remove ~/src
  replio run --trust "..."       trust for one invocation only`,
    )
    .exitOverride()
    .action(async (path: string | undefined, options) => {
      const { runTrustCommand } = await import("./trust.ts");
      setExitCode(await runTrustCommand(path, options));
    });

  program.command("plugin")
    .description("add, list, remove or update URL plugins (pinned by integrity, docs/plugins.md)")
    .argument("<action>", "add | list | remove | update")
    .argument("[target]", "plugin URL (or path, for remove)")
    .option("--global", "use the global file (~/.config/replio/config.yaml)")
    .option("--yes", "grant the permissions the plugin requests without asking")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (action: string, target: string | undefined, options) => {
      const { runPluginCommand } = await import("./plugin.ts");
      setExitCode(await runPluginCommand(action, target, options));
    });

  const sessions = program.command("sessions")
    .description("list or show saved sessions, or remove old sessions' kept outputs")
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
  sessions.command("gc")
    .description("remove the kept tool outputs of sessions older than --days (default 14)")
    .option("--days <n>", "age in days of the last write", "14")
    .option("--path <dir>", "worktree (default: the current directory)")
    .exitOverride()
    .action(async (options) => {
      const { gcSessions } = await import("./sessions.ts");
      setExitCode(await gcSessions(options));
    });

  addMetaCommands(program, setExitCode);

  return program;
}
