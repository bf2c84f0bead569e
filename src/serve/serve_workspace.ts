/**
 * What `replio serve` works on, as src/cli hands it over: types only.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { Agent } from "../engine/mod.ts";
import type { Provider } from "../providers/mod.ts";
import type { Session } from "../session/mod.ts";
import type { Policy, ToolRegistry } from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";

/**
 * An endpoint another area answers, handed in by src/cli (the MCP server at `/mcp`): serve may
 * not import that area, so it gets the handler instead.
 */
export interface HttpMount {
  /** The path it answers, for GET, POST and DELETE (`/mcp`). */
  path: string;
  /** Answers a request that passed the server's access checks (token, Origin, Host). */
  answer(request: Request): Promise<Response>;
  /** Ends its open streams and running work at shutdown; resolves once all of it has ended. */
  close(): Promise<void>;
}

/** What the server works on; src/cli builds it from the workspace. */
export interface ServeWorkspace {
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  /** The server's mode, carrying the headless answer (`--yes` or not) for ask-gated calls. */
  policy: Policy;
  provider: Provider;
  /** Agent types a chat completion may name as its model (`replio/agent/<type>`). */
  agentTypes: readonly string[];
  /**
   * The root agent of one turn, wired as `replio run` wires it (delegate, agent types); with
   * `agentType`, running as that type.
   */
  createAgent(
    parts: { session: Session; sink: Sink; policy: Policy; agentType?: string },
  ): Agent | Promise<Agent>;
  /** The listing `replio tools --json` prints, under `policy`. */
  listTools(policy: Policy): unknown;
  /** Endpoints answered by other areas, behind the same access checks as the rest. */
  mounts?: readonly HttpMount[] | undefined;
}
