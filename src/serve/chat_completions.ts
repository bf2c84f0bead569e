/**
 * The OpenAI-compatible face of `replio serve` (docs/serve.md): `GET /v1/models` lists each
 * mode as a model (`replio/default`, `replio/plan`, …) and `POST /v1/chat/completions` runs one
 * replio turn, tools and policy included, whose final answer is the assistant message. Tool
 * activity travels in the `replio` extension field, which OpenAI clients ignore.
 * @module
 */
import type { TurnResult } from "../engine/mod.ts";
import type { ConfirmAnswer, Sink, TurnEvent } from "../ui/events.ts";
import { toWire } from "../ui/stream_json.ts";
import { HttpError } from "./http_error.ts";

/** Every model name starts with this; the rest names a mode or `agent/<type>`. */
export const MODEL_PREFIX = "replio/";

/** After {@link MODEL_PREFIX}, this marks an agent type rather than a mode. */
const AGENT_PREFIX = "agent/";

/** What the model names of a server are made of. */
export interface ModelSources {
  modes: readonly string[];
  agentTypes: readonly string[];
}

/** A chat completion request, reduced to what a replio turn needs. */
export interface ChatRequest {
  /** The model as the client named it, echoed in every response. */
  model: string;
  /** The mode of the turn; absent for an agent type, which runs in the server's mode. */
  mode?: string;
  agentType?: string;
  prompt: string;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with the usage. */
  includeUsage: boolean;
  /** `replio.session`: continue this replio session instead of starting a new one. */
  session?: string;
}

/**
 * Every model name a server answers to: its modes, then its agent types.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(
 *   modelNames({ modes: ["default", "plan"], agentTypes: ["explore"] }),
 *   ["replio/default", "replio/plan", "replio/agent/explore"],
 * );
 * ```
 */
export function modelNames(sources: ModelSources): string[] {
  return [
    ...sources.modes.map((mode) => MODEL_PREFIX + mode),
    ...sources.agentTypes.map((type) => `${MODEL_PREFIX}${AGENT_PREFIX}${type}`),
  ];
}

/**
 * The `GET /v1/models` body: one model per mode and agent type.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(listModels({ modes: ["default"], agentTypes: [] }, 7).data, [
 *   { id: "replio/default", object: "model", created: 7, owned_by: "replio" },
 * ]);
 * ```
 */
export function listModels(sources: ModelSources, created: number) {
  return {
    object: "list",
    data: modelNames(sources).map((id) => ({ id, object: "model", created, owned_by: "replio" })),
  };
}

/** Reads a chat completion body; throws HttpError 400 or 404 (unknown model). */
export function parseChatRequest(
  body: Record<string, unknown>,
  sources: ModelSources,
): ChatRequest {
  const model = body.model;
  const names = modelNames(sources);
  if (typeof model !== "string" || !names.includes(model)) {
    throw new HttpError(
      404,
      "model_not_found",
      `Cannot use model ${JSON.stringify(model ?? null)}: replio serves ${
        names.map((m) => `"${m}"`).join(", ")
      }: pick one (GET /v1/models lists them)`,
    );
  }
  const name = model.slice(MODEL_PREFIX.length);
  const type = name.startsWith(AGENT_PREFIX) ? name.slice(AGENT_PREFIX.length) : undefined;
  // A mode may itself be called "agent/x"; a mode listed first wins, as in modelNames.
  const target = type !== undefined && !sources.modes.includes(name)
    ? { agentType: type }
    : { mode: name };
  const messages = readMessages(body.messages);
  const extension = (body.replio ?? {}) as { session?: unknown };
  const streamOptions = (body.stream_options ?? {}) as { include_usage?: unknown };
  return {
    model,
    ...target,
    prompt: promptOf(messages),
    stream: body.stream === true,
    includeUsage: streamOptions.include_usage === true,
    ...(typeof extension.session === "string" ? { session: extension.session } : {}),
  };
}

interface ChatMessage {
  role: string;
  content: string;
}

function readMessages(raw: unknown): ChatMessage[] {
  const bad = (detail: string) =>
    new HttpError(
      400,
      "bad_request",
      `Cannot read "messages": ${detail}: send [{"role": "user", "content": "..."}]`,
    );
  if (!Array.isArray(raw) || raw.length === 0) throw bad("expected a non-empty array");
  return raw.map((message, i) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (typeof role !== "string") throw bad(`message ${i} has no "role"`);
    return { role, content: contentText(content) };
  });
}

/** Content may be a string or an array of parts; only text parts carry meaning to replio. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    (part as { type?: unknown; text?: unknown }).type === "text"
      ? String((part as { text: unknown }).text)
      : ""
  ).filter(Boolean).join("\n");
}

/**
 * The turn's prompt: the last user message. An OpenAI client resends the whole conversation
 * each time, so earlier messages (and its system instructions) come first as quoted context.
 */
function promptOf(messages: ChatMessage[]): string {
  const last = messages.at(-1)!;
  if (last.role !== "user" || !last.content.trim()) {
    throw new HttpError(
      400,
      "bad_request",
      `Cannot start a turn: the last message must be a user message with text, got role ` +
        `"${last.role}": end "messages" with the user's request`,
    );
  }
  const earlier = messages.slice(0, -1).filter((m) => m.content.trim());
  if (earlier.length === 0) return last.content;
  const context = earlier.map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
  return `The conversation so far, as the client sent it:\n\n${context}\n\n[user]\n${last.content}`;
}

/** The `replio` extension field: what the turn did besides answering. */
export function turnExtension(result: TurnResult) {
  return {
    session: result.session,
    status: result.status,
    tool_calls: result.tool_calls,
    permissions: result.permissions,
    errors: result.errors,
    rounds: result.rounds,
  };
}

/** `stop`, or `length` when the turn was cut short by the model's limit or `max_rounds`. */
function finishReason(result: TurnResult): "stop" | "length" {
  return result.status === "truncated" || result.status === "max_rounds" ? "length" : "stop";
}

/** The `chat.completion` body for a finished turn. */
export function completionBody(
  request: ChatRequest,
  id: string,
  created: number,
  result: TurnResult,
) {
  return {
    id,
    object: "chat.completion",
    created,
    model: request.model,
    choices: [{
      index: 0,
      message: { role: "assistant", content: result.content },
      finish_reason: finishReason(result),
      logprobs: null,
    }],
    usage: result.usage,
    replio: turnExtension(result),
  };
}

const encoder = new TextEncoder();

/**
 * A headless sink writing `chat.completion.chunk` server-sent events: text deltas as content,
 * tool calls, permissions and results as chunks with an empty delta and the event under
 * `replio.event`, then the finish chunk, the usage chunk if asked, and `data: [DONE]`.
 */
export class ChatStreamSink implements Sink {
  readonly body: ReadableStream<Uint8Array>;
  readonly #request: ChatRequest;
  readonly #id: string;
  readonly #created: number;
  #controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  #isOpen = true;

  /** `onCancel` runs once when the client goes away before the stream ended. */
  constructor(options: { request: ChatRequest; id: string; created: number; onCancel(): void }) {
    this.#request = options.request;
    this.#id = options.id;
    this.#created = options.created;
    this.body = new ReadableStream({
      start: (controller) => {
        this.#controller = controller;
        this.#chunk({ role: "assistant", content: "" }, null);
      },
      cancel: () => {
        this.#isOpen = false;
        options.onCancel();
      },
    });
  }

  emit(event: TurnEvent): void {
    if (event.type === "text") {
      this.#chunk({ content: event.delta }, null);
    } else if (
      event.type === "tool_call" || event.type === "permission" || event.type === "tool_result" ||
      event.type === "error"
    ) {
      this.#chunk({}, null, { event: toWire(event) });
    }
  }

  /** Writes the finish chunk (with the turn in `replio`), the usage, `[DONE]`, and ends. */
  finish(result: TurnResult): void {
    this.#chunk({}, finishReason(result), turnExtension(result));
    if (this.#request.includeUsage) {
      this.#send({ ...this.#head(), choices: [], usage: result.usage });
    }
    this.end();
  }

  /** Ends the stream: after the finish chunk, or after an internal error. */
  end(): void {
    if (!this.#isOpen) return;
    this.#write("data: [DONE]\n\n");
    this.#isOpen = false;
    this.#controller?.close();
  }

  confirm(): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }

  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }

  #head() {
    return {
      id: this.#id,
      object: "chat.completion.chunk",
      created: this.#created,
      model: this.#request.model,
    };
  }

  #chunk(delta: Record<string, unknown>, finish: string | null, replio?: unknown): void {
    this.#send({
      ...this.#head(),
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...(replio === undefined ? {} : { replio }),
    });
  }

  #send(chunk: unknown): void {
    this.#write(`data: ${JSON.stringify(chunk)}\n\n`);
  }

  #write(text: string): void {
    // After a disconnect the turn still winds down and saves; its last events have no reader.
    if (!this.#isOpen) return;
    this.#controller?.enqueue(encoder.encode(text));
  }
}
