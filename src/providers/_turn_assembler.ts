/**
 * Turns the parsed chunks of one streamed chat completion into provider events.
 * @module
 */
import type { FinishReason, ProviderEvent, ToolCall, Usage } from "./types.ts";

/** A tool-call fragment as servers stream it; every field may be missing. */
interface ToolCallDelta {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a usage object, or null when the value is not one. */
export function readUsage(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const prompt = Number(value.prompt_tokens ?? 0);
  const completion = Number(value.completion_tokens ?? 0);
  const total = Number(value.total_tokens ?? prompt + completion);
  if (![prompt, completion, total].every(Number.isFinite)) return null;
  const cost = typeof value.cost === "number" && Number.isFinite(value.cost) ? value.cost : null;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: total,
    ...(cost === null ? {} : { cost }),
  };
}

/**
 * Collects one streamed assistant turn: `add()` returns the text and thinking deltas to yield
 * at once, and keeps tool calls, usage and the finish reason for `finish()`.
 */
export class TurnAssembler {
  /** The server's `finish_reason`, once one arrived. */
  finishReason: string | null = null;
  readonly #calls: PendingCall[] = [];
  readonly #byIndex = new Map<number, PendingCall>();
  #usage: Usage | null = null;
  /** A trailing high surrogate per stream, held until its low half arrives. */
  readonly #held = { thinking: "", text: "" };
  readonly #newCallId: () => string;

  /** `newCallId` names calls the server sent without an id. */
  constructor(newCallId: () => string) {
    this.#newCallId = newCallId;
  }

  /** Takes one parsed chunk; returns the deltas to yield now. */
  add(chunk: Record<string, unknown>): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    this.#usage = readUsage(chunk.usage) ?? this.#usage;
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    if (!isRecord(choice)) return events;
    if (typeof choice.finish_reason === "string") this.finishReason = choice.finish_reason;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    // Servers name reasoning differently; one that sends both sends the same text twice.
    const thinking = delta.reasoning_content ?? delta.reasoning;
    if (typeof thinking === "string") this.#push(events, "thinking", thinking);
    if (typeof delta.content === "string") this.#push(events, "text", delta.content);
    if (Array.isArray(delta.tool_calls)) {
      for (const part of delta.tool_calls) if (isRecord(part)) this.#addCallPart(part);
    }
    return events;
  }

  /** The closing events: leftovers, all tool calls at once, usage, then `done`. */
  finish(): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    for (const type of ["thinking", "text"] as const) {
      if (this.#held[type]) events.push({ type, delta: this.#held[type] });
      this.#held[type] = "";
    }
    const calls: ToolCall[] = this.#calls
      .filter((call) => call.name !== "" || call.arguments !== "")
      .map((call) => ({
        id: call.id || this.#newCallId(),
        type: "function",
        // Servers refuse an empty arguments string when the call is sent back.
        function: { name: call.name, arguments: call.arguments || "{}" },
      }));
    if (calls.length > 0) events.push({ type: "tool_calls", calls });
    if (this.#usage) events.push({ type: "usage", usage: this.#usage });
    events.push({ type: "done", reason: this.#reason(calls.length > 0) });
    return events;
  }

  #reason(hasCalls: boolean): FinishReason {
    if (this.finishReason === "length") return "length";
    // Some servers end a tool-calling turn with "stop": the calls decide.
    return hasCalls ? "tool_calls" : "stop";
  }

  #push(events: ProviderEvent[], type: "thinking" | "text", delta: string): void {
    let text = this.#held[type] + delta;
    this.#held[type] = "";
    // A surrogate pair split across events would print as two replacement characters.
    if (HIGH_SURROGATE.test(text)) {
      this.#held[type] = text.slice(-1);
      text = text.slice(0, -1);
    }
    if (text) events.push({ type, delta: text });
  }

  #addCallPart(part: ToolCallDelta): void {
    const call = this.#callFor(part);
    const fn = isRecord(part.function) ? part.function : {};
    if (typeof fn.name === "string" && fn.name !== call.name) call.name += fn.name;
    if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    // Some servers send the arguments as an object rather than JSON text.
    else if (isRecord(fn.arguments)) call.arguments += JSON.stringify(fn.arguments);
  }

  /**
   * The call a fragment belongs to: by `id` when known, by `index` unless that slot already
   * holds a call with another id, else the latest call; a new `id` always starts a new call.
   */
  #callFor(part: ToolCallDelta): PendingCall {
    const id = typeof part.id === "string" ? part.id : "";
    const index = typeof part.index === "number" ? part.index : null;
    const known = id ? this.#calls.find((call) => call.id === id) : undefined;
    if (known) return known;
    let call = index === null ? (id ? undefined : this.#calls.at(-1)) : this.#byIndex.get(index);
    // Some servers send every whole call with index 0: a different id is a different call.
    if (call && id && call.id && call.id !== id) call = undefined;
    if (!call) {
      call = { id, name: "", arguments: "" };
      this.#calls.push(call);
    }
    call.id ||= id;
    if (index !== null) this.#byIndex.set(index, call);
    return call;
  }
}
