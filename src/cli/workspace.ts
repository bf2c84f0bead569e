/**
 * What every subcommand starts from: the worktree, the merged config, the registry and the
 * policy for a mode.
 * @module
 */
import { type Config, type ConfigKey, loadConfig } from "../config/mod.ts";
import { type AgentType, CORE_PLUGIN, loadAgentTypes } from "../agents/mod.ts";
import { startMcpServers } from "../mcp/mod.ts";
import { createRegistry, loadUserPlugins } from "../plugins/mod.ts";
import {
  type HeadlessAnswer,
  type Policy,
  ToolPolicy,
  type ToolRegistry,
  unknownToolNames,
} from "../tools/mod.ts";
import { VERSION } from "../version.ts";
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

/** Resolves the worktree, loads config and builds registry and policy. */
export async function openWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const worktree = await resolveWorktree(options.path);
  const config = await loadConfig({ worktree, flags: configFlags(options) });
  const userPlugins = await loadUserPlugins(config.get("plugins"), worktree);
  const mcpPlugins = await startMcpServers(config.get("mcp_servers"), {
    worktree,
    version: VERSION,
    warn: (message) => Deno.stderr.writeSync(new TextEncoder().encode(`replio: ${message}\n`)),
  });
  const registry = createRegistry([CORE_PLUGIN, ...userPlugins, ...mcpPlugins]);
  const policy = new ToolPolicy({
    config,
    worktree,
    mode: options.mode,
    headless: options.headless && headlessAnswer(options.headless),
  });
  const agentTypes = await loadAgentTypes(worktree, config);
  const notices = toolNameWarnings({ registry, policy, agentTypes });
  return { worktree, config, registry, policy, agentTypes, notices };
}
