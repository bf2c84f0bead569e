/**
 * `replio agents`: the agent types delegate can run, with where each is declared.
 * @module
 */
import { type AgentType, formatAgentTypes, loadAgentTypes } from "../agents/mod.ts";
import { formatTrustNotice, loadConfig } from "../config/mod.ts";
import { EXIT } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";

/** Options of `replio agents`. */
export interface AgentsCommandOptions {
  json?: boolean;
  path?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
}

/** Prints the agent types; exit 0. Needs no registry, so plugins and MCP servers stay unloaded. */
export async function listAgents(options: AgentsCommandOptions): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const config = await loadConfig({ worktree, trust: options.trust });
  const notice = formatTrustNotice(config.trust);
  if (notice) await Deno.stderr.write(new TextEncoder().encode(notice + "\n"));
  const types = [...(await loadAgentTypes(worktree, config)).values()];
  const text = options.json
    ? JSON.stringify({ agents: types.map(toJson) }, null, 2) + "\n"
    : formatAgentTypes(types);
  await Deno.stdout.write(new TextEncoder().encode(text));
  return EXIT.ok;
}

function toJson(type: AgentType) {
  return {
    name: type.name,
    description: type.description,
    source: type.source,
    model: type.model ?? null,
    max_rounds: type.maxRounds ?? null,
    tool_permission: type.toolPermission,
    tools: type.tools,
  };
}
