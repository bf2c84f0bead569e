/**
 * A 2xx chat completions response read into provider events: the SSE stream chunk by chunk, or
 * a plain JSON reply whole. An answer that is neither (a login page, a JSON error, an empty body)
 * is reported as what it is, with its first bytes, rather than as a stream that ended early.
 * @module
 */
import { describeHtml } from "./describe_html.ts";
import {
  AttemptFailure,
  incompleteFailure,
  malformedFailure,
  notAReplyFailure,
  oneLine,
  streamedErrorFailure,
} from "./_failures.ts";
import { readServerSentEvents, type ServerSentEvent } from "./_sse.ts";
import { readUsage, TurnAssembler } from "./_turn_assembler.ts";
import type { ProviderEvent } from "./types.ts";

/** What is kept of a body before its first event: enough to show it and to read a JSON error. */
const MAX_HEAD_BYTES = 4096;
/** SSE lines, by their field; a body whose first line is one was a stream that ended early. */
const SSE_LINE = /^(:|data|event|id|retry)\b/;

/** Options of {@link readChatStream}. */
export interface ChatStreamOptions {
  baseUrl: string;
  /** Names calls the server sent without an id. */
  newCallId: () => string;
  /** Runs after every network read (the idle timer). */
  onRead: () => void;
  /** Aborted when the caller cancelled or the idle timer fired: an early end is then no failure. */
  signal: AbortSignal;
  /** Whether deltas already reached the caller: a stream cut after that is not retried. */
  hasYielded: () => boolean;
}

/**
 * Yields the events of one streamed reply: deltas as they come, then tool calls, usage and
 * `done`. `[DONE]` is told apart from a clean early close, which throws.
 * @throws {AttemptFailure} for an answer that is no stream, a malformed or error event, or a
 * stream that ended before its finish reason
 */
export async function* readChatStream(
  response: Response,
  options: ChatStreamOptions,
): AsyncGenerator<ProviderEvent> {
  const { baseUrl } = options;
  const contentType = response.headers.get("content-type");
  // A proxy or login page answers 200 with HTML: say so without reading it as events.
  if (contentType && /\bhtml\b/i.test(contentType)) {
    throw notAStream(await response.text(), contentType, baseUrl);
  }
  if (!response.body) {
    throw new AttemptFailure(malformedFailure(baseUrl, "the response has no body"));
  }
  const head = new HeadBytes();
  let events = 0;
  const turn = new TurnAssembler(options.newCallId);
  let sawDone = false;
  const onRead = (bytes: Uint8Array | undefined) => {
    options.onRead();
    if (events === 0) head.add(bytes);
  };
  for await (const event of readServerSentEvents(response.body, onRead)) {
    events++;
    if (event.data.trim() === "[DONE]") {
      sawDone = true;
      break;
    }
    yield* turn.add(parseChunk(event, baseUrl));
  }
  if (options.signal.aborted) return;
  if (events === 0 && !SSE_LINE.test(head.text().trimStart())) {
    throw notAStream(head.text(), contentType, baseUrl);
  }
  if (!sawDone && turn.finishReason === null) {
    throw new AttemptFailure(incompleteFailure(options.hasYielded()));
  }
  yield* turn.finish();
}

/**
 * The events of one non-streamed reply: its text, usage and `done`.
 * @throws {AttemptFailure} for an HTML page or a body that is not a chat completion
 */
export function* readCompletion(
  text: string,
  contentType: string | null,
  baseUrl: string,
): Generator<ProviderEvent> {
  const page = describeHtml(text, contentType);
  if (page) {
    throw new AttemptFailure(
      notAReplyFailure({ page, contentType, body: text }, baseUrl, "a model reply"),
    );
  }
  const reply = parseObject(text, "response", baseUrl);
  const choice = Array.isArray(reply.choices) ? reply.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : null;
  if (!message) {
    throw new AttemptFailure(
      malformedFailure(baseUrl, `no "choices[0].message" in ${JSON.stringify(oneLine(text))}`),
    );
  }
  yield { type: "text", delta: typeof message.content === "string" ? message.content : "" };
  const usage = readUsage(reply.usage);
  if (usage) yield { type: "usage", usage };
  yield { type: "done", reason: "stop" };
}

function notAStream(body: string, contentType: string | null, baseUrl: string): AttemptFailure {
  const page = describeHtml(body, contentType);
  return new AttemptFailure(
    notAReplyFailure({ page, contentType, body }, baseUrl, "an event stream"),
  );
}

function parseChunk(event: ServerSentEvent, baseUrl: string): Record<string, unknown> {
  const chunk = parseObject(event.data, "data line", baseUrl);
  const error = chunk.error;
  if (event.event === "error" || error !== undefined) {
    const message = isRecord(error) && typeof error.message === "string"
      ? error.message
      : JSON.stringify(error ?? chunk);
    throw new AttemptFailure(streamedErrorFailure(message));
  }
  return chunk;
}

function parseObject(text: string, what: string, baseUrl: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new AttemptFailure(
      malformedFailure(baseUrl, `${what} is not JSON: ${JSON.stringify(oneLine(text))}`),
    );
  }
  if (isRecord(value)) return value;
  throw new AttemptFailure(
    malformedFailure(baseUrl, `${what} is not a JSON object: ${JSON.stringify(oneLine(text))}`),
  );
}

/** The first bytes of a body, decoded once at the end (a character may span two reads). */
class HeadBytes {
  readonly #parts: Uint8Array[] = [];
  #size = 0;

  add(bytes: Uint8Array | undefined): void {
    if (!bytes || this.#size >= MAX_HEAD_BYTES) return;
    const part = bytes.subarray(0, MAX_HEAD_BYTES - this.#size);
    this.#parts.push(part);
    this.#size += part.length;
  }

  text(): string {
    const joined = new Uint8Array(this.#size);
    let at = 0;
    for (const part of this.#parts) {
      joined.set(part, at);
      at += part.length;
    }
    return new TextDecoder().decode(joined);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
