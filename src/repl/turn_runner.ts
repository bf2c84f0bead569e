/**
 * One message to the model: the warning when it cannot fit the context, the files it mentions
 * attached, the turn itself (Ctrl-C cancels it), and the status line after it with what the
 * context holds and what the session cost.
 * @module
 */
import type { Agent } from "../engine/mod.ts";
import type { PromptAnswer } from "../ui/terminal.ts";
import { attachMentions } from "./attach_mentions.ts";
import type { ReplContext } from "./context.ts";
import { fitsContext } from "./context_fit.ts";
import { formatStatus } from "./status_line.ts";

/** Runs the REPL's turns and keeps the figures its status line shows. */
export class TurnRunner {
  readonly #question: (prompt: string) => Promise<PromptAnswer>;
  /** Tokens the last request used, for the status line. */
  #contextTokens = 0;
  /** What this REPL's requests cost, when the provider reports it. */
  #cost: number | null = null;
  #mentions = 0;

  /** `question` asks the person one line (whether to send a message that will not fit). */
  constructor(question: (prompt: string) => Promise<PromptAnswer>) {
    this.#question = question;
  }

  /** Sends `prompt` to `agent` in a turn, then prints the status line. */
  async run(repl: ReplContext, agent: Agent, prompt: string): Promise<void> {
    const context = { tokens: agent.contextTokens, window: repl.config.get("context_window") };
    const io = {
      styles: repl.styles,
      print: repl.print.bind(repl),
      question: this.#question,
    };
    if (!(await fitsContext(prompt, context, io))) return;
    const result = await repl.cancellable(async (signal) => {
      repl.sink.beginTurn();
      const reader = {
        worktree: repl.worktree,
        config: repl.config,
        registry: repl.registry,
        policy: repl.policy,
        sink: repl.sink,
        session: repl.session,
        nextId: () => `mention_${++this.#mentions}`,
      };
      const message = prompt + await attachMentions(prompt, reader, signal);
      return await agent.runTurn(message, signal);
    });
    this.#contextTokens = agent.contextTokens;
    if (result.usage.cost !== undefined) this.#cost = (this.#cost ?? 0) + result.usage.cost;
    const status = formatStatus({
      model: repl.model,
      mode: repl.policy.mode,
      contextTokens: this.#contextTokens,
      contextWindow: repl.config.get("context_window"),
      cost: this.#cost,
    }, repl.width);
    repl.print(status, repl.styles.dim);
  }
}
