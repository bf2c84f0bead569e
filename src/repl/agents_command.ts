/**
 * `/agents`: the agent types delegate can run, as `replio agents` lists them.
 * @module
 */
import { formatAgentTypes, loadAgentTypes } from "../agents/mod.ts";
import type { SlashCommand } from "./context.ts";

/** `/agents`. */
export const agentsCommand: SlashCommand = {
  name: "agents",
  usage: "/agents",
  summary: "Agent types for delegate (built-in, config, .replio/agents/*.md)",
  async run(repl) {
    const types = await loadAgentTypes(repl.worktree, repl.config);
    repl.print(formatAgentTypes([...types.values()]).trimEnd());
  },
};
