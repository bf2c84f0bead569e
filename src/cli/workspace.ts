/**
 * What every subcommand starts from: the worktree, the merged config, the registry and the
 * policy for a mode.
 * @module
 */
import { type Config, type ConfigKey, loadConfig } from "../config/mod.ts";
import { type AgentType, CORE_PLUGIN, loadAgentTypes } from "../agents/mod.ts";
import { startMcpServers } from "../mcp/mod.ts";
import { createRegistry, loadUserPlugins, planSandbox } from "../plugins/mod.ts";
import { type HeadlessAnswer, ToolPolicy, type ToolRegistry } from "../tools/mod.ts";
import { VERSION } from "../version.ts";
import { resolveWorktree } from "./resolve_worktree.ts";

/** The loaded state a subcommand works on. */
export interface Workspace {
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  policy: ToolPolicy;
  agentTypes: ReadonlyMap<string, AgentType>;
}

/** The command-line options every subcommand shares, as commander parses them. */
export interface WorkspaceOptions {
  path?: string | undefined;
  mode?: string | undefined;
  model?: string | undefined;
  baseUrl?: string | undefined;
  /** Set for headless commands (tool, run, serve, mcp): no person answers ask-gated calls. */
  headless?: { yes?: boolean | undefined; no?: boolean | undefined } | undefined;
}

/** The config values the command line sets (`--model`, `--base-url`), as origin `flag`. */
export function configFlags(options: WorkspaceOptions): Partial<Record<ConfigKey, unknown>> {
  return {
    ...(options.model ? { model: options.model } : {}),
    ...(options.baseUrl ? { base_url: options.baseUrl } : {}),
  };
}

/** `--yes` grants ask-gated calls headless unless `--no` is given too; otherwise denied. */
function headlessAnswer(flags: NonNullable<WorkspaceOptions["headless"]>): HeadlessAnswer {
  return flags.yes && !flags.no ? "yes" : "no";
}

/** Resolves the worktree, loads config and builds registry and policy. */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const worktree = await resolveWorktree(options.path);
  const config = await loadConfig({ worktree, flags: configFlags(options) });
  const warn = (message: string) =>
    Deno.stderr.writeSync(new TextEncoder().encode(`replio: ${message}\n`));
  const userPlugins = await loadUserPlugins(config.get("plugins"), { worktree, warn });
  const mcpPlugins = await startMcpServers(config.get("mcp_servers"), {
    worktree,
    version: VERSION,
    warn,
    sandbox: config.get("sandbox.mcp") ? planSandbox(config, worktree) : undefined,
  });
  const registry = createRegistry([CORE_PLUGIN, ...userPlugins, ...mcpPlugins]);
  const policy = new ToolPolicy({
    config,
    worktree,
    mode: options.mode,
    headless: options.headless && headlessAnswer(options.headless),
  });
  const agentTypes = await loadAgentTypes(worktree, config);
  return { worktree, config, registry, policy, agentTypes };
}
