/**
 * What every route of `replio serve` shares: the workspace, the server's shutdown signal, the
 * turn starter and the policy for a request's mode. Route modules take a {@link ServeContext}
 * and return their routes (routes.ts), so a new endpoint needs nothing from server.ts.
 * @module
 */
import { ConfigError } from "../config/mod.ts";
import { type HeadlessAnswer, type Policy, ToolPolicy } from "../tools/mod.ts";
import { HttpError } from "./http_error.ts";
import { TurnStarter } from "./turn_starter.ts";
import type { ServeWorkspace } from "./serve_workspace.ts";

/** The server's state and helpers, as every route module sees them. */
export interface ServeContext {
  readonly workspace: ServeWorkspace;
  /** replio's version, for `GET /v1/health`. */
  readonly version: string;
  /** Aborted on shutdown: running turns and tool calls are cancelled through it. */
  readonly closing: AbortSignal;
  /** Starts turns, one at a time per session, and knows which still run. */
  readonly turns: TurnStarter;
  /** The server's policy, or one for `mode` with the same headless answer; 400 for a bad mode. */
  policyFor(mode: string | null | undefined, headless?: HeadlessAnswer): Policy;
  /** Throws 503 once the server is shutting down: no new turn may start then. */
  refuseWhileClosing(): void;
  /** Hands an error the client gets no word of (a streamed turn's) to the operator's log. */
  reportInternalError(error: unknown): void;
}

/** Builds the context of one server; `closing` is the server's shutdown signal. */
export function createServeContext(options: {
  workspace: ServeWorkspace;
  version: string;
  closing: AbortSignal;
  onInternalError?: ((error: unknown) => void) | undefined;
}): ServeContext {
  const { workspace, closing } = options;
  return {
    workspace,
    version: options.version,
    closing,
    turns: new TurnStarter(workspace),
    policyFor(mode, headless) {
      const { config, worktree, policy } = workspace;
      if (!mode && !headless) return policy;
      try {
        return new ToolPolicy({
          config,
          worktree,
          mode: mode || policy.mode,
          headless: headless ?? policy.headless,
        });
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        throw new HttpError(400, "bad_request", error.message, { param: "mode" });
      }
    },
    refuseWhileClosing() {
      if (closing.aborted) {
        throw new HttpError(
          503,
          "shutting_down",
          "Cannot start a turn: the server is shutting down: start it again and retry",
        );
      }
    },
    reportInternalError: (error) => options.onInternalError?.(error),
  };
}
