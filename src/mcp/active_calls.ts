/**
 * The calls running on one MCP server connection. A server's own requests (a form for the
 * person, a sampling request for the model) arrive while one of its tools runs, without saying
 * which call they belong to: they are answered through the latest call's context, so they reach
 * the same person, model and flags as that call, and what replio refused on its behalf is told
 * to the model with the call's result.
 * @module
 */
import type { AskAnswer, AskRequest, ToolContext } from "../tools/types.ts";
import type { CallDeadline } from "./call_deadline.ts";

/** One running call, as a server request sees it. */
export interface CallScope {
  readonly ctx: ToolContext;
  /** Lines for the model after the server's result: what replio declined or refused. */
  readonly notes: string[];
  /** Asks the call's person (ctx.ask) with the call's deadline paused while they answer. */
  askPerson(request: AskRequest): Promise<AskAnswer>;
}

/** The calls in flight on one connection, newest last. */
export class ActiveCalls {
  readonly #calls: CallScope[] = [];

  /** Registers a call until the returned scope is disposed. */
  begin(ctx: ToolContext, deadline: CallDeadline): CallScope & Disposable {
    const calls = this.#calls;
    const scope: CallScope & Disposable = {
      ctx,
      notes: [],
      askPerson: (request) => deadline.paused(() => ctx.ask(request)),
      [Symbol.dispose]() {
        const at = calls.indexOf(scope);
        if (at !== -1) calls.splice(at, 1);
      },
    };
    calls.push(scope);
    return scope;
  }

  /**
   * The call a server request belongs to: the latest one started (replio runs a turn's calls one
   * at a time), or undefined when none runs.
   */
  latest(): CallScope | undefined {
    return this.#calls.at(-1);
  }
}
