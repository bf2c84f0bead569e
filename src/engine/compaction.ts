/**
 * Compaction: older messages are summarised by the model and replaced in the in-memory history;
 * the recent ones are kept whole. Between turns that means older turns; inside a long turn (a
 * model calling tools for hundreds of rounds) the turn's older rounds, its prompt kept verbatim.
 * The session log itself is never trimmed: a `compaction` record says what was replaced.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { ChatMessage, Provider, Usage } from "../providers/types.ts";
import { summaryMessage } from "../session/mod.ts";
import type { Sink } from "../ui/events.ts";
import { type FoldPlan, KEPT_ROUNDS, planFold, promptTokenEstimate } from "./fold_plan.ts";
import { collectWhenIdle } from "./idle_gc.ts";
import type { TurnLog } from "./turn_log.ts";

/** Characters of each message given to the summariser; the summary need not quote whole files. */
const MESSAGE_CHARS = 2000;

/**
 * A fold should leave the next requests at most this share of the limit: then the turn runs
 * many rounds before the next compaction, instead of compacting again at once.
 */
const ROOM_SHARE = 0.5;

const SUMMARY_PROMPT =
  "Summarise the conversation below for your own later use: the user's goals, decisions made, " +
  "files read or changed (with paths), commands run and their outcomes, and open questions. " +
  "Be concise and factual; use bullet points.";

/** Added when rounds of a running turn are folded: the work goes on right after the summary. */
const IN_TURN_PROMPT = "The user's current request is kept verbatim after your summary, and " +
  "your latest steps follow it: say what has been done for the request so far and what was " +
  "learned on the way.";

/** A compacted history: the summary message first, then the kept messages. */
export interface Compacted {
  history: ChatMessage[];
  summary: string;
  /** How many of the newest messages were kept verbatim (the kept prompt aside). */
  kept: number;
  /** The running turn's prompt was kept too, right after the summary (a fold inside a turn). */
  keepsPrompt: boolean;
}

/**
 * Compacts one agent's history when it grows past `compact_threshold` × `context_window`, and
 * records each compaction in the session. One per agent: it remembers a failed summary, so a
 * provider that cannot summarise is not asked again every round.
 */
export class Compactor {
  readonly #provider: Provider;
  readonly #config: Config;
  readonly #session: TurnLog;
  /** Checks made so far (one a round, one at a turn's end), and the first to try again at. */
  #checks = 0;
  #retryAt = 0;

  constructor(options: { provider: Provider; config: Config; session: TurnLog }) {
    this.#provider = options.provider;
    this.#config = options.config;
    this.#session = options.session;
  }

  /**
   * Summarises now (a person's `/compact`): whole turns when there are any to fold, else the
   * running turn's older rounds; null when there is nothing to fold. Throws when the summary
   * request fails.
   */
  async compact(history: readonly ChatMessage[], signal: AbortSignal): Promise<Compacted | null> {
    const plan = planFold(history, { tokens: 0, roomTokens: 0 });
    if (!plan) return null;
    const compacted = foldWith(
      history,
      plan,
      await summarise(history, plan, this.#provider, signal),
    );
    this.#record(compacted);
    return compacted;
  }

  /**
   * The compacted history when the next request would pass the limit (`usage` is the last
   * request's; see {@link promptTokenEstimate}), else null. A summary request that fails
   * leaves the history and the session as they are, with a note, and is tried again
   * {@link KEPT_ROUNDS} checks later.
   */
  async compactIfNeeded(options: {
    history: readonly ChatMessage[];
    usage: Usage | null;
    signal: AbortSignal;
    sink: Sink;
  }): Promise<ChatMessage[] | null> {
    const { history, usage, signal, sink } = options;
    this.#checks++;
    const limit = this.#config.get("compact_threshold") * this.#config.get("context_window");
    const reported = usage?.prompt_tokens ?? null;
    const tokens = promptTokenEstimate(reported, history);
    if (tokens <= limit || signal.aborted || this.#checks < this.#retryAt) return null;
    const plan = planFold(history, { tokens, roomTokens: limit * ROOM_SHARE });
    if (!plan) return null;
    let summary: string;
    try {
      summary = await summarise(history, plan, this.#provider, signal);
    } catch (error) {
      // Whatever the summary request throws (a provider error, a cancel): the turn goes on.
      this.#retryAt = this.#checks + KEPT_ROUNDS;
      const detail = signal.aborted
        ? "it was cancelled"
        : error instanceof Error
        ? error.message
        : String(error);
      sink.emit({
        type: "note",
        message: `context not compacted: the summary request failed: ${detail}: the turn goes ` +
          `on with its whole history, and compaction is tried again in ${KEPT_ROUNDS} rounds`,
      });
      return null;
    }
    const compacted = foldWith(history, plan, summary);
    this.#record(compacted);
    const estimated = reported === null || tokens > reported ? " (estimated from its size)" : "";
    const kept = compacted.keepsPrompt
      ? `: kept the request and its last ${KEPT_ROUNDS} rounds`
      : "";
    sink.emit({
      type: "note",
      message: `context compacted: ${tokens} prompt tokens${estimated} passed ${
        Math.round(limit)
      }${kept}`,
    });
    return compacted.history;
  }

  /**
   * Appends the `compaction` record. The kept messages are the session's last ones, so `upto`
   * counts back from its message count; a kept prompt is the last user message up to `upto`.
   * Then the folded messages' memory is collected, as every compaction passes here.
   */
  #record(compacted: Compacted): void {
    this.#session.append({
      type: "compaction",
      summary: compacted.summary,
      upto: this.#session.messageCount - compacted.kept - 1,
      ...(compacted.keepsPrompt ? { keeps_prompt: true } : {}),
    });
    // The folded messages are garbage now: without a collection a long turn's memory keeps its
    // peak (the REPL also collects at its prompt; a headless run has no prompt).
    collectWhenIdle();
  }
}

/** The model's summary of what `plan` folds. */
async function summarise(
  history: readonly ChatMessage[],
  plan: FoldPlan,
  provider: Provider,
  signal: AbortSignal,
): Promise<string> {
  const older = history.slice(0, plan.cut).filter((_, i) => i !== plan.prompt);
  const instructions = plan.prompt === null
    ? SUMMARY_PROMPT
    : `${SUMMARY_PROMPT} ${IN_TURN_PROMPT}`;
  return (await provider.complete([
    { role: "system", content: instructions },
    { role: "user", content: older.map(renderForSummary).join("\n") },
  ], signal)).trim();
}

/** The history `plan` and `summary` make: the summary, the kept prompt, the kept messages. */
function foldWith(history: readonly ChatMessage[], plan: FoldPlan, summary: string): Compacted {
  const kept = history.slice(plan.cut);
  const prompt = plan.prompt === null ? [] : [history[plan.prompt]!];
  return {
    history: [summaryMessage(summary), ...prompt, ...kept],
    summary,
    kept: kept.length,
    keepsPrompt: plan.prompt !== null,
  };
}

function renderForSummary(message: ChatMessage): string {
  const clip = (text: string) =>
    text.length > MESSAGE_CHARS ? text.slice(0, MESSAGE_CHARS) + " …(clipped)" : text;
  switch (message.role) {
    case "assistant": {
      const calls = (message.tool_calls ?? []).map((c) =>
        `${c.function.name}(${c.function.arguments})`
      );
      return `assistant: ${clip(message.content ?? "")}${
        calls.length ? ` [calls: ${calls.join(", ")}]` : ""
      }`;
    }
    case "tool":
      return `tool ${message.name}: ${clip(message.content)}`;
    default:
      return `${message.role}: ${clip(message.content)}`;
  }
}
