/**
 * Wires a root agent: provider, session, sink, and the delegate runner with agent types, so
 * `run`, the REPL and `serve` build the same agent the same way.
 * @module
 */
import {
  AGENT_TYPES_SERVICE,
  type AgentType,
  agentTypePolicy,
  DELEGATE_SERVICE,
} from "../agents/mod.ts";
import { DelegateRunner } from "../agents/delegate_runner.ts";
import { Agent } from "../engine/mod.ts";
import { createProvider } from "../providers/mod.ts";
import type { Provider } from "../providers/types.ts";
import { openSession, type Session, sessionOutputStore } from "../session/mod.ts";
import { OUTPUT_STORE_SERVICE, type Policy } from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";
import type { Workspace } from "./workspace.ts";

/** What a root agent is built from. */
export interface RootAgentOptions {
  provider: Provider;
  session: Session;
  sink: Sink;
  /** Defaults to the workspace's policy; the REPL passes one for the current mode. */
  policy?: Policy;
  maxRounds?: number | undefined;
  /** Run as this agent type: its prompt and rounds, its policy narrowing `policy`. */
  agentType?: AgentType | undefined;
}

/** The root agent of a workspace, able to delegate to sub-agents. */
export function createRootAgent(ws: Workspace, options: RootAgentOptions): Agent {
  const { provider, session, sink } = options;
  const { agentType } = options;
  const policy = agentType
    ? agentTypePolicy(options.policy ?? ws.policy, ws.config, agentType)
    : options.policy ?? ws.policy;
  const runner = new DelegateRunner({
    provider,
    providerFor: (model) => createProvider(ws.config, { model }),
    registry: ws.registry,
    policy,
    config: ws.config,
    sink,
    session,
    openSession: (agentType, parent) =>
      openSession(ws.worktree, { config: ws.config, parent, agentType, model: provider.model }),
    agentTypes: ws.agentTypes,
    depth: 0,
  });
  return new Agent({
    provider,
    registry: ws.registry,
    policy,
    config: ws.config,
    session,
    sink,
    maxRounds: options.maxRounds ?? agentType?.maxRounds,
    ...(agentType ? { agentPrompt: agentType.prompt } : {}),
    services: {
      [DELEGATE_SERVICE]: runner,
      [AGENT_TYPES_SERVICE]: ws.agentTypes,
      // Cut results are kept whole in the session's folder, for tool_output and /output.
      [OUTPUT_STORE_SERVICE]: sessionOutputStore(ws.worktree, session.id, ws.config),
    },
  });
}
