/**
 * One turn of `replio serve`, from opening its session to releasing it, whether or not anyone
 * still listens: a client that hangs up cancels the turn, which still saves what it did.
 * @module
 */
import { resumeState, type TurnResult } from "../engine/mod.ts";
import { openSession, type Session } from "../session/mod.ts";
import type { Policy } from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";
import { HttpError } from "./http_error.ts";
import type { TurnRequest } from "./parse_turn_request.ts";
import type { ServeWorkspace } from "./serve_workspace.ts";
import { SessionLocks } from "./session_locks.ts";

/** How one turn runs: its policy, where its events go, what cancels it. */
export interface TurnParts {
  policy: Policy;
  sink: Sink;
  signal: AbortSignal;
  agentType?: string;
}

/** Starts turns, one at a time per session, and keeps the ones still running for shutdown. */
export class TurnStarter {
  readonly #ws: ServeWorkspace;
  /** Sessions with a turn running, and sessions being answered (parked calls). */
  readonly locks = new SessionLocks();
  /** Turns still running, settled or not; a turn outlives its response after a disconnect. */
  readonly #running = new Set<Promise<unknown>>();

  constructor(workspace: ServeWorkspace) {
    this.#ws = workspace;
  }

  /**
   * Opens the session (one turn at a time in it) and starts the turn; `done` settles when the
   * turn has saved and released its session.
   */
  async start(turn: TurnRequest, parts: TurnParts): Promise<{ done: Promise<TurnResult> }> {
    const { worktree, config, provider } = this.#ws;
    // A named session is reserved before its file is read: a second turn must not resume it.
    const reserved = turn.session === undefined ? null : this.locks.acquire(turn.session);
    let session: Session;
    try {
      session = await openSession(worktree, {
        config,
        id: turn.session,
        model: provider.model,
        onUnwritable: (message) => parts.sink.emit({ type: "note", message }),
      });
    } catch (error) {
      reserved?.[Symbol.dispose]();
      throw error;
    }
    const lock = reserved ?? this.locks.acquire(session.id);
    const run = async () => {
      using _lock = lock;
      using _session = session;
      parts.sink.emit({ type: "session", id: session.id });
      const agent = await this.#ws.createAgent({
        session,
        sink: parts.sink,
        policy: parts.policy,
        ...(parts.agentType === undefined ? {} : { agentType: parts.agentType }),
      });
      if (!turn.resume) return withPending(await agent.runTurn(turn.prompt, parts.signal), session);
      const parked = session.parked()[0];
      if (!parked?.approval) {
        throw new HttpError(
          409,
          "not_answered",
          parked
            ? `Cannot resume session "${session.id}": call ${parked.call.call_id} has no answer ` +
              `yet: POST /v1/sessions/${session.id}/pending/${parked.call.call_id} first`
            : `Cannot resume session "${session.id}": no call in it waits for approval`,
        );
      }
      return withPending(
        await agent.resumeTurn(resumeState(session, parked), parts.signal),
        session,
      );
    };
    const done = run();
    const settled = done.then(() => {}, () => {});
    this.#running.add(settled);
    void settled.then(() => this.#running.delete(settled));
    return { done };
  }

  /** Resolves once every turn started so far has ended and saved its session. */
  async settled(): Promise<void> {
    await Promise.all(this.#running);
  }
}

/** A parked turn's result names the call it waits on, as `replio run --output json` does. */
function withPending(result: TurnResult, session: Session): TurnResult {
  if (result.status !== "parked") return result;
  const pending = session.parked().at(-1)?.call;
  return pending ? { ...result, pending } as TurnResult : result;
}
