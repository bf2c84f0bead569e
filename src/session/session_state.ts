/**
 * Folds session records, in file order, into what a resumed session needs: the model history
 * (compaction honoured), the turn count, and the records that close a crashed turn.
 * @module
 */
import type { ChatMessage, ToolCall, Usage } from "../providers/types.ts";
import { pairToolResults } from "./pair_tool_results.ts";
import type { NewRecord, PendingCall, SessionRecord } from "./records.ts";

/** A parked call and the answer `replio approve` / `replio deny` gave it, if any yet. */
export interface ParkedCall {
  call: PendingCall;
  approval: Extract<SessionRecord, { type: "approval" }> | null;
  /** A resume granted it and may have started it (its result never came): never rerun it. */
  started: boolean;
}

/** The text that introduces a compaction summary in the history. */
export const SUMMARY_PREFIX =
  "Summary of the conversation so far (earlier messages were compacted):";

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/**
 * The message a compaction summary becomes in the history. It is a user message, not a system
 * one: several chat templates reject a system message after the first.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(summaryMessage("We fixed the parser."), {
 *   role: "user",
 *   content: `${SUMMARY_PREFIX}\n\nWe fixed the parser.`,
 * });
 * ```
 */
export function summaryMessage(summary: string): ChatMessage {
  return { role: "user", content: `${SUMMARY_PREFIX}\n\n${summary}` };
}

/** The turn running or last run: what a failed one needs to be retried. */
interface TurnTrace {
  prompt: string;
  /** The index (among all message records) of the user message the turn sent, if it sent one. */
  userMessage: number | null;
  /** The model replied: text, reasoning or tool calls. */
  isAnswered: boolean;
}

/** The running state of one session, fed one record at a time. */
export class SessionState {
  /**
   * Messages after the last compaction, each with its index among all message records. A
   * resume's scan may give one as `read` instead: it is parsed only if it is still kept at the
   * end ({@link SessionState.settle}).
   */
  #kept: {
    index: number;
    role: ChatMessage["role"];
    message: ChatMessage | null;
    read?: () => ChatMessage | null;
  }[] = [];
  #summary: string | null = null;
  #messageCount = 0;
  #turns = 0;
  #turnOpen = false;
  #turn: TurnTrace | null = null;
  #unansweredPrompt: string | null = null;
  /** The model of the last `model` record; null before one. */
  #model: string | null = null;
  /** Calls a `--park` run stopped at that have no result yet, with their answer if given. */
  readonly #parked = new Map<string, ParkedCall>();

  /** How many `message` records the session holds; compaction's `upto` counts these. */
  get messageCount(): number {
    return this.#messageCount;
  }

  /** The model the last `model` record named (a switch since the header), or null. */
  get model(): string | null {
    return this.#model;
  }

  /** The number of the last turn started (0 before the first). */
  get turns(): number {
    return this.#turns;
  }

  /** Takes one record into account. */
  apply(record: SessionRecord): void {
    switch (record.type) {
      case "message": {
        const { message } = record;
        this.#takeMessage(message.role, message.role === "tool" ? message.tool_call_id : null, {
          message,
        });
        break;
      }
      case "pending": {
        const { type: _type, ...call } = record;
        this.#parked.set(record.call_id, { call, approval: null, started: false });
        break;
      }
      case "permission": {
        const parked = record.call_id ? this.#parked.get(record.call_id) : undefined;
        if (parked && record.decision === "granted") parked.started = true;
        break;
      }
      case "approval": {
        const parked = this.#parked.get(record.call_id);
        if (parked) parked.approval = record;
        break;
      }
      case "model":
        this.#model = record.model;
        break;
      case "compaction": {
        // A compaction inside a turn keeps the turn's prompt: the last user message it replaces.
        const prompt = record.keeps_prompt === true
          ? this.#kept.findLast((entry) => entry.index <= record.upto && entry.role === "user")
          : undefined;
        this.#summary = record.summary;
        this.#kept = this.#kept.filter((entry) => entry.index > record.upto || entry === prompt);
        break;
      }
      case "turn_start":
        this.#turns = Math.max(this.#turns + 1, record.turn);
        this.#turnOpen = true;
        this.#turn = { prompt: record.prompt, userMessage: null, isAnswered: false };
        this.#unansweredPrompt = null;
        break;
      case "turn_end":
        this.#turnOpen = false;
        if (record.status === "error" || record.status === "cancelled") this.#setAsideUnanswered();
        break;
    }
  }

  /**
   * Takes a message record read but not parsed yet: its role and call id now, the message
   * itself from `read` if it is still in the history when the scan ends.
   */
  applyUnread(
    role: ChatMessage["role"],
    toolCallId: string | null,
    read: () => ChatMessage | null,
  ) {
    this.#takeMessage(role, toolCallId, { message: null, read });
  }

  /**
   * Reads every message still kept that was taken unread; false when one turns out unusable (the
   * caller then reads the file again, parsing every line).
   */
  settle(): boolean {
    for (const entry of this.#kept) {
      if (entry.message !== null) continue;
      entry.message = entry.read?.() ?? null;
      if (entry.message === null) return false;
      delete entry.read;
    }
    return true;
  }

  #takeMessage(
    role: ChatMessage["role"],
    toolCallId: string | null,
    entry: { message: ChatMessage | null; read?: () => ChatMessage | null },
  ): void {
    this.#traceMessage(role);
    this.#kept.push({ index: this.#messageCount++, role, ...entry });
    if (toolCallId !== null) this.#parked.delete(toolCallId);
  }

  #traceMessage(role: ChatMessage["role"]): void {
    const turn = this.#turnOpen ? this.#turn : null;
    if (!turn) return;
    if (role === "user" && turn.userMessage === null) turn.userMessage = this.#messageCount;
    if (role === "assistant") turn.isAnswered = true;
  }

  /** The kept messages; every one was read ({@link settle}) before anything asks for them. */
  #messages(): ChatMessage[] {
    return this.#kept.map((entry) => entry.message!);
  }

  /**
   * A turn that failed or was cancelled before the model replied (no server, a refused key,
   * Ctrl-C during a retry wait) keeps its prompt in the file, for a retry, but leaves the
   * history: the model never saw it, and a retry or the next prompt must not reach it after an
   * orphan copy.
   */
  #setAsideUnanswered(): void {
    const turn = this.#turn;
    if (!turn || turn.isAnswered || turn.userMessage === null) return;
    const index = turn.userMessage;
    this.#kept = this.#kept.filter((entry) => entry.index !== index);
    this.#unansweredPrompt = turn.prompt;
  }

  /**
   * The prompt of the last turn when that turn failed or was cancelled before the model replied
   * (what `replio run --continue` retries), else null.
   */
  get unansweredPrompt(): string | null {
    return this.#unansweredPrompt;
  }

  /**
   * The history the model continues from: the last summary, then the messages it kept (those
   * after its `upto`, and the turn's prompt when it `keeps_prompt`), with
   * every tool call answered (a crash can leave one without its result) and without the prompt
   * of any turn that failed or was cancelled before the model replied.
   */
  history(): ChatMessage[] {
    const paired = pairToolResults(this.#messages());
    // A parked turn's unanswered calls get their real results when it resumes.
    const messages = this.#parked.size
      ? paired.messages.slice(0, paired.messages.length - paired.interrupted.length)
      : paired.messages;
    return this.#summary === null ? messages : [summaryMessage(this.#summary), ...messages];
  }

  /** The calls a `--park` run stopped at that still wait for their result, oldest first. */
  parked(): ParkedCall[] {
    return [...this.#parked.values()];
  }

  /**
   * The calls of the last assistant message that have no result yet: on a parked session, what
   * a resume runs (the parked call and the ones after it).
   */
  unanswered(): ToolCall[] {
    const { interrupted } = pairToolResults(this.#messages());
    const ids = new Set(
      interrupted.map((m) => (m as Extract<ChatMessage, { role: "tool" }>).tool_call_id),
    );
    const last = this.#messages().findLast((message) => message.role === "assistant");
    const calls = last?.role === "assistant" ? last.tool_calls ?? [] : [];
    return calls.filter((call) => ids.has(call.id));
  }

  /**
   * Records that make a crashed file whole again, to write before anything else on resume:
   * synthetic results for unanswered calls, then an `error` and a `turn_end` for an open turn.
   */
  repairs(): NewRecord[] {
    // A parked turn ended cleanly; its calls are answered by the resume, not made up here.
    if (this.#parked.size) return [];
    const { interrupted } = pairToolResults(this.#messages());
    const records: NewRecord[] = interrupted.map((message) => ({ type: "message", message }));
    if (this.#turnOpen) {
      records.push(
        {
          type: "error",
          code: "interrupted",
          message: `Turn ${this.#turns} did not finish: the process stopped before it ended`,
        },
        { type: "turn_end", status: "error", usage: NO_USAGE },
      );
    }
    return records;
  }
}
