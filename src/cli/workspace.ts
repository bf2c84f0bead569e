/**
 * What every subcommand starts from: the worktree, the merged config, the registry and the
 * policy for a mode.
 * @module
 */
import {
  addTrustedFolder,
  type Config,
  type ConfigKey,
  configPaths,
  type FolderTrust,
  formatTrustNotice,
  loadConfig,
  type TrustAnswer,
} from "../config/mod.ts";
import { type AgentType, CORE_PLUGIN, loadAgentTypes } from "../agents/mod.ts";
import { type McpServers, startMcpServers } from "../mcp/mod.ts";
import { createRegistry, loadUserPlugins, planSandbox } from "../plugins/mod.ts";
import {
  type HeadlessAnswer,
  type Policy,
  ToolPolicy,
  type ToolRegistry,
  unknownToolNames,
} from "../tools/mod.ts";
import { VERSION } from "../version.ts";
import { UsageError } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";

/** The loaded state a subcommand works on. */
export interface Workspace {
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  policy: ToolPolicy;
  agentTypes: ReadonlyMap<string, AgentType>;
  /** Start-up warnings for the front-end to show (a tools.deny entry that names no tool). */
  notices?: string[];
  /** The configured MCP servers, some perhaps still starting; null when none are configured. */
  mcp?: McpServers | null;
}

/** The command-line options every subcommand shares, as commander parses them. */
export interface WorkspaceOptions {
  path?: string | undefined;
  mode?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  /** A config file that stands in for the worktree's `.replio/config.yaml` (`policy test --config`). */
  configFile?: string | undefined;
  /** Set for headless commands (tool, run, serve, mcp): no person answers ask-gated calls. */
  headless?:
    | { yes?: boolean | undefined; no?: boolean | undefined; park?: boolean | undefined }
    | undefined;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean | undefined;
  /**
   * Asks the person whether to trust a worktree whose own settings were left out (the REPL);
   * without it the one-line notice goes to stderr, as headless commands never ask.
   */
  askTrust?: ((trust: FolderTrust) => Promise<TrustAnswer>) | undefined;
  /**
   * Seconds to wait for MCP servers before returning (default: config `mcp_startup_wait`);
   * slower servers register their tools when they are up.
   */
  mcpWait?: number | undefined;
  /**
   * Where warnings of plugins and MCP servers go, also those that come after this returns (a
   * server failing later); default stderr as `replio: <message>`. The REPL shows them above
   * its prompt.
   */
  warn?: ((message: string) => void) | undefined;
}

/** The config values the command line sets (`--model`, `--base-url`), as origin `flag`. */
export function configFlags(options: WorkspaceOptions): Partial<Record<ConfigKey, unknown>> {
  return {
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { base_url: options.baseUrl } : {}),
  };
}

/**
 * `--park` stops at ask-gated calls to wait for a person; `--yes` grants them unless `--no` is
 * given too; otherwise they are denied.
 */
function headlessAnswer(flags: NonNullable<WorkspaceOptions["headless"]>): HeadlessAnswer {
  if (flags.park) return "park";
  return flags.yes && !flags.no ? "yes" : "no";
}

/**
 * Warnings for tools.allow / tools.deny entries (config, the mode, agent types) that name no
 * tool or alias: such an entry silently does nothing.
 */
export function toolNameWarnings(
  ws: { registry: ToolRegistry; policy: Policy; agentTypes?: ReadonlyMap<string, AgentType> },
): string[] {
  // A sub-agent's intersected policy has no lists of its own to check.
  const policyLists = ws.policy instanceof ToolPolicy ? ws.policy.nameLists : [];
  return unknownToolNames(ws.registry, [
    ...policyLists,
    ...[...(ws.agentTypes ?? [])].flatMap(([name, type]) => [
      { source: `agents.${name}.tools.allow`, names: type.tools.allow },
      { source: `agents.${name}.tools.deny`, names: type.tools.deny },
    ]),
  ]);
}

/**
 * Resolves the worktree, loads config (deciding folder trust before any plugin, MCP server or
 * agent file of the worktree could load) and builds registry and policy.
 */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const worktree = await resolveWorktree(options.path);
  const config = await loadTrustedConfig(worktree, options);
  const onWarning = options.warn ?? ((message: string) => warn(`replio: ${message}`));
  const userPlugins = await loadUserPlugins(config.get("plugins"), { worktree, warn: onWarning });
  const headless = options.headless && headlessAnswer(options.headless);
  const mcp = await startMcpServers(config.get("mcp_servers"), {
    worktree,
    version: VERSION,
    config,
    warn: onWarning,
    sandbox: config.get("sandbox.mcp") ? planSandbox(config, worktree) : undefined,
    // A server's sampling request is allowed headless only with --yes, as ask-gated calls are.
    headless,
  });
  const registry = createRegistry([CORE_PLUGIN, ...userPlugins]);
  mcp?.attach(registry);
  // A hanging server must not hold up every command: wait a moment, then go on without it.
  await mcp?.settle((options.mcpWait ?? config.get("mcp_startup_wait")) * 1000);
  const policy = new ToolPolicy({
    config,
    worktree,
    mode: options.mode,
    headless,
  });
  const agentTypes = await loadAgentTypes(worktree, config);
  const notices = toolNameWarnings({ registry, policy, agentTypes });
  return { worktree, config, registry, policy, agentTypes, notices, mcp };
}

/** The config with folder trust settled: by flag or trusted_folders, by the person, or not. */
async function loadTrustedConfig(worktree: string, options: WorkspaceOptions): Promise<Config> {
  const flags = configFlags(options);
  if (options.configFile !== undefined) {
    // A file the user named on the command line is theirs: trusted like the flags.
    const paths = { ...configPaths(worktree), local: options.configFile };
    return await loadConfig({ worktree, flags, paths, trust: true });
  }
  const config = await loadConfig({ worktree, flags, trust: options.trust });
  const { trust } = config;
  if (trust.trusted || trust.ignored === null || !options.askTrust) {
    const notice = formatTrustNotice(trust);
    if (notice) warn(notice);
    return config;
  }
  const answer = await options.askTrust(trust);
  if (answer === "no") return config;
  if (answer === "always") {
    const file = configPaths(worktree).global;
    if (file === null) {
      throw new UsageError(
        "Cannot trust this folder: neither XDG_CONFIG_HOME nor HOME can be read, so there is no global config: run replio with --allow-env",
      );
    }
    await addTrustedFolder(file, worktree);
  }
  // "always" reloads as the next start will, trusted by the entry just written.
  return await loadConfig({ worktree, flags, trust: answer === "once" || options.trust });
}

function warn(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`${line}\n`));
}
