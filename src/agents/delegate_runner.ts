/**
 * Runs delegated tasks: a sub-agent of an agent type, in the same process, with its own
 * session linked from the parent's, an intersected policy, bounded depth and rounds, and ask
 * routed to the human or back to this (lead) agent.
 * @module
 */
import type { Config } from "../config/mod.ts";
import { Agent, type TurnLog } from "../engine/mod.ts";
import type { Provider } from "../providers/types.ts";
import { sessionOutputStore } from "../session/mod.ts";
import { OUTPUT_STORE_SERVICE, type Policy, type ToolRegistry } from "../tools/mod.ts";
import type { AskAnswer, AskRequest } from "../tools/types.ts";
import type { Sink, TurnEvent } from "../ui/events.ts";
import type { AgentType } from "./agent_types.ts";
import { agentTypePolicy } from "./agent_type_policy.ts";
import { AGENT_TYPES_SERVICE, DELEGATE_SERVICE } from "./services.ts";

/** Keeps lead consultations short: they answer one question, not run a turn. */
const LEAD_BREVITY = "Answer in at most a few sentences.";

/** What the runner needs from the agent that delegates. */
export interface DelegateHost {
  provider: Provider;
  /** A provider for a type that names another model. */
  providerFor?: (model: string) => Promise<Provider>;
  registry: ToolRegistry;
  policy: Policy;
  config: Config;
  sink: Sink;
  session: TurnLog;
  /** Opens the sub-agent's session (`sub_<type>_<id>`, linked to `parentId`). */
  openSession(agentType: string, parentId: string): Promise<TurnLog>;
  agentTypes: ReadonlyMap<string, AgentType>;
  /** 0 for the root agent. */
  depth: number;
  /** The task this agent itself was delegated, for its own children's lead consultations. */
  task?: string;
}

/** One delegated task. */
export interface DelegateRequest {
  agentType: string;
  task: string;
  context?: string | undefined;
  signal: AbortSignal;
}

/** Runs sub-agents for one parent agent. */
export class DelegateRunner {
  constructor(private readonly host: DelegateHost) {}

  /** How deep this runner's children would be. */
  get childDepth(): number {
    return this.host.depth + 1;
  }

  /** Whether a child may be started at all under `max_delegate_depth`. */
  get canDelegate(): boolean {
    return this.childDepth <= this.host.config.get("max_delegate_depth");
  }

  /** Runs the task to completion and returns the sub-agent's answer with a footer line. */
  async run(request: DelegateRequest): Promise<string> {
    const { host } = this;
    const type = host.agentTypes.get(request.agentType);
    if (!type) {
      throw new Error(
        `Cannot delegate: agent type "${request.agentType}" is not registered: use ${
          [...host.agentTypes.keys()].join(", ")
        }`,
      );
    }
    if (!this.canDelegate) {
      throw new Error(
        `Cannot delegate: max_delegate_depth ${
          host.config.get("max_delegate_depth")
        } reached: do the task yourself`,
      );
    }
    const session = await host.openSession(type.name, host.session.id);
    await host.session.append({
      type: "subagent",
      session: session.id,
      agent_type: type.name,
      task: request.task,
    });
    const policy = agentTypePolicy(host.policy, host.config, type);
    const provider = type.model && host.providerFor
      ? await host.providerFor(type.model)
      : host.provider;
    const childRunner = new DelegateRunner({
      ...host,
      provider,
      policy,
      session,
      depth: this.childDepth,
      task: request.task,
    });
    const agent = new Agent({
      provider,
      registry: host.registry,
      policy,
      config: host.config,
      session,
      sink: childSink(host.sink, session.id),
      maxRounds: type.maxRounds,
      agentPrompt: type.prompt,
      ask: (ask) => this.#routeChildAsk(ask, session.id, request.task, request.signal),
      services: {
        [DELEGATE_SERVICE]: childRunner,
        [AGENT_TYPES_SERVICE]: host.agentTypes,
        // A sub-agent's cut results are kept in its own session's folder.
        [OUTPUT_STORE_SERVICE]: sessionOutputStore(host.policy.worktree, session.id, host.config),
      },
    });
    const prompt = request.context
      ? `${request.task}\n\nContext:\n${request.context}`
      : request.task;
    const result = await agent.runTurn(prompt, request.signal);
    const seconds = (result.duration_ms / 1000).toFixed(1);
    const footer =
      `[${session.id}: ${type.name}, ${result.status}, ${seconds}s, ${result.usage.total_tokens} tokens, ${result.rounds} rounds]`;
    if (result.status === "error") {
      const message = result.errors.map((e) => e.message).join("; ");
      // Thrown, not returned: the registry marks it a failure and adds the `Error: ` prefix.
      throw new Error(
        `the sub-agent failed: ${message}: try again or do the task yourself\n${footer}`,
      );
    }
    return `${result.content.trim() || "(the sub-agent gave no answer)"}\n\n${footer}`;
  }

  /** A child's ask: `lead` is answered by this agent's model; `human` by the operator, else the lead. */
  async #routeChildAsk(
    request: AskRequest,
    from: string,
    task: string,
    signal: AbortSignal,
  ): Promise<AskAnswer> {
    if (request.target === "human") {
      const answer = await this.host.sink.ask({ ...request, from });
      if (answer !== null) return answer;
    }
    return await this.consultLead(request, task, signal);
  }

  /** A bounded, non-streaming consultation of this agent's model: not a full turn. */
  async consultLead(request: AskRequest, task: string, signal: AbortSignal): Promise<string> {
    const lines = [
      `A sub-agent you delegated a task to asks you a question.`,
      `Task you delegated: ${task}`,
      `Question: ${request.question}`,
      ...(request.context ? [`Context: ${request.context}`] : []),
      ...(request.options?.length ? [`Options: ${request.options.join(" | ")}`] : []),
    ];
    const answer = await this.host.provider.complete([
      {
        role: "system",
        content: `You are the lead agent. Decide for the sub-agent. ${LEAD_BREVITY}`,
      },
      { role: "user", content: lines.join("\n") },
    ], signal);
    return answer.trim() || "(the lead gave no answer: decide yourself)";
  }
}

/** The agent type's own policy: its tool_permission and tools lists over the config. */
/** Sub-agent events reach the operator as notes; confirmations and questions name the session. */
function childSink(parent: Sink, sessionId: string): Sink {
  return {
    emit(event: TurnEvent) {
      if (event.type === "tool_call") {
        const key = event.activity.key ? ` ${event.activity.key.split("\n")[0]}` : "";
        parent.emit({
          type: "note",
          message: `${sessionId}: ${event.activity.glyph ?? ""} ${event.activity.verb}${key}`
            .replace(/ {2,}/g, " "),
        });
      } else if (event.type === "error") {
        parent.emit({ type: "note", message: `${sessionId}: error: ${event.message}` });
      }
    },
    confirm: (request) => parent.confirm({ ...request, reason: `${sessionId}: ${request.reason}` }),
    ask: (request) => parent.ask({ ...request, from: request.from ?? sessionId }),
  };
}
