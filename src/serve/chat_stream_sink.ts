/**
 * A streamed chat completion: the turn's events as `chat.completion.chunk` server-sent events,
 * ended as OpenAI ends a stream, with the finish chunk and `data: [DONE]`, or, when the turn
 * gave no answer, with an error event (`data: {"error": {...}}`) that the openai SDKs raise.
 * @module
 */
import type { TurnResult } from "../engine/mod.ts";
import type { ConfirmAnswer, Sink, TurnEvent } from "../ui/events.ts";
import { toWire } from "../ui/stream_json.ts";
import { finishReason, turnExtension, turnFailure } from "./chat_completion.ts";
import type { ChatRequest } from "./chat_request.ts";
import { errorBody } from "./_respond.ts";
import { RoundText } from "./round_text.ts";

const encoder = new TextEncoder();

/**
 * A headless sink writing `chat.completion.chunk` server-sent events: text deltas as content
 * (each round a new paragraph), tool calls, permissions and results as chunks with an empty
 * delta and the event under `replio.event`, then the finish chunk, the usage chunk if asked, and
 * `data: [DONE]`.
 */
export class ChatStreamSink implements Sink {
  readonly body: ReadableStream<Uint8Array>;
  readonly #request: ChatRequest;
  readonly #id: string;
  readonly #created: number;
  readonly #text = new RoundText();
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
    const text = this.#text.add(event);
    if (text !== null) {
      this.#chunk({ content: text }, null);
    } else if (
      event.type === "tool_call" || event.type === "permission" || event.type === "tool_result" ||
      event.type === "error"
    ) {
      this.#chunk({}, null, { event: toWire(event) });
    }
  }

  /**
   * Ends the stream for a finished turn: the finish chunk (with the turn in `replio`), the usage,
   * `[DONE]`; or the error event when the turn gave no answer.
   */
  finish(result: TurnResult): void {
    const failure = turnFailure(result);
    if (failure) {
      this.fail(failure, turnExtension(result));
      return;
    }
    this.#chunk({}, finishReason(result), turnExtension(result));
    if (this.#request.includeUsage) {
      this.#send({ ...this.#head(), choices: [], usage: result.usage });
    }
    this.#write("data: [DONE]\n\n");
    this.#close();
  }

  /**
   * Ends the stream with OpenAI's error event, `data: {"error": {message, type, param, code}}`,
   * which the openai SDKs raise as an APIError; no `[DONE]` follows, as no answer was given.
   */
  fail(error: unknown, replio?: unknown): void {
    this.#send({ error: errorBody(error), ...(replio === undefined ? {} : { replio }) });
    this.#close();
  }

  confirm(): Promise<ConfirmAnswer> {
    return Promise.resolve("no");
  }

  ask(): Promise<string | null> {
    return Promise.resolve(null);
  }

  #close(): void {
    if (!this.#isOpen) return;
    this.#isOpen = false;
    this.#controller?.close();
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
