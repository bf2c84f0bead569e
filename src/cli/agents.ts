/**
 * `replio agents`: the agent types delegate can run, with where each is declared.
 * @module
 */
import { type AgentType, formatAgentTypes } from "../agents/mod.ts";
import { EXIT } from "./errors.ts";
import { openWorkspace } from "./workspace.ts";

/** Options of `replio agents`. */
export interface AgentsCommandOptions {
  json?: boolean;
  path?: string;
}

/** Prints the agent types; exit 0. */
export async function listAgents(options: AgentsCommandOptions): Promise<number> {
  const ws = await openWorkspace({ path: options.path });
  const types = [...ws.agentTypes.values()];
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
