/**
 * Builds a real root agent in a temp worktree against the mock model server: real config,
 * registry (bundled plugins + ask/delegate), policy, session file and provider.
 * @module
 */
import type { ConfigKey } from "../../src/config/mod.ts";
import { CORE_PLUGIN, loadAgentTypes } from "../../src/agents/mod.ts";
import { createRootAgent } from "../../src/cli/start_agent.ts";
import type { Workspace } from "../../src/cli/workspace.ts";
import type { Agent } from "../../src/engine/mod.ts";
import type { Plugin } from "../../src/plugins/api.ts";
import { createRegistry } from "../../src/plugins/mod.ts";
import { createProvider } from "../../src/providers/mod.ts";
import { openSession, type Session } from "../../src/session/mod.ts";
import { type HeadlessAnswer, ToolPolicy } from "../../src/tools/mod.ts";
import type { Sink } from "../../src/ui/events.ts";
import type { MockModel } from "./mock_model.ts";
import { configWith, RecordingSink } from "./worktree.ts";

/** Options for {@link startTestAgent}. */
export interface TestAgentOptions {
  config?: Partial<Record<ConfigKey, unknown>>;
  headless?: HeadlessAnswer;
  mode?: string;
  sink?: Sink;
  sessionId?: string;
  maxRounds?: number;
  plugins?: Plugin[];
}

/** A root agent, its workspace and session. Dispose closes the session. */
export interface TestAgent extends Disposable {
  agent: Agent;
  ws: Workspace;
  session: Session;
  sink: Sink;
}

/** A root agent wired exactly as `replio run` wires one, pointed at `mock`. */
export async function startTestAgent(
  worktree: string,
  mock: MockModel,
  options: TestAgentOptions = {},
): Promise<TestAgent> {
  const config = await configWith(
    { base_url: mock.baseUrl, model: "mock-model", max_retries: 0, ...options.config },
    worktree,
  );
  const registry = createRegistry([CORE_PLUGIN, ...(options.plugins ?? [])]);
  const policy = new ToolPolicy({
    config,
    worktree,
    mode: options.mode,
    headless: options.headless ?? "no",
  });
  const ws: Workspace = {
    worktree,
    config,
    registry,
    policy,
    agentTypes: await loadAgentTypes(worktree, config),
  };
  const provider = await createProvider(config);
  const session = await openSession(worktree, {
    config,
    id: options.sessionId,
    model: provider.model,
  });
  const sink = options.sink ?? new RecordingSink();
  const agent = createRootAgent(ws, { provider, session, sink, maxRounds: options.maxRounds });
  return { agent, ws, session, sink, [Symbol.dispose]: () => session[Symbol.dispose]() };
}
