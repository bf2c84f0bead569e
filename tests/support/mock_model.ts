/**
 * A scripted OpenAI-compatible model server: a real HTTP server on 127.0.0.1 that answers
 * `POST /v1/chat/completions` (SSE streaming and plain JSON) and `GET /v1/models`, one scripted
 * {@link MockTurn} per chat request, with faults on demand. It records every request and checks
 * on every request that each assistant tool call is answered by exactly one tool message.
 * `GET /mock/log` returns `{requests, violations, remaining}` (not itself recorded).
 *
 * ```ts ignore
 * await using mock = startMockModel([
 *   { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
 *   { text: "Done" },
 * ]);
 * // point the provider at mock.baseUrl, run a turn, then:
 * assert.deepEqual(mock.violations, []);
 * assert.equal(mock.requests[1]!.messages.at(-1)!.role, "tool");
 * ```
 * @module
 */
import type { ChatMessage, Usage } from "../../src/providers/types.ts";
import { withDeadline } from "./deadline.ts";

/**
 * How tool calls travel in the stream: `split` (OpenAI: id and name first, then the arguments
 * in pieces, each delta with `index`), `whole` (each call complete in one chunk), `no_index`
 * (like `split` but without `index`: a new `id` starts a new call), `stop_after_calls` (like
 * `split` but the stream ends with `finish_reason: "stop"`).
 */
export type MockDialect = "split" | "whole" | "no_index" | "stop_after_calls";

/**
 * A failure to inject: HTTP `429`, `500` or `401` instead of an answer; `reset` drops the
 * connection mid-stream; `no_done` ends the body without `data: [DONE]`; `malformed` sends a
 * data line that is not JSON; `hang` goes silent until the client or the mock closes.
 */
export type MockFault = "429" | "500" | "401" | "reset" | "no_done" | "malformed" | "hang";

/** One tool call the scripted model makes. */
export interface MockToolCall {
  name: string;
  /** An object is sent as its JSON text; a string is sent as is (even if not valid JSON). */
  arguments?: Record<string, unknown> | string;
  /** Default `call_mock_<n>`, unique for the mock's life; `null` sends no id at all. */
  id?: string | null;
}

/** One scripted reply, used for one chat request. Every field is optional. */
export interface MockTurn {
  /** Answer text, streamed in pieces of `chunkSize` UTF-16 code units. */
  text?: string;
  /** Reasoning text, streamed before the answer in the `thinkingField` delta field. */
  thinking?: string;
  /** Default `reasoning_content` (DeepSeek, vLLM); `reasoning` is Ollama's and OpenRouter's. */
  thinkingField?: "reasoning_content" | "reasoning";
  /** Tool calls, streamed after the text; arguments are split across chunks by default. */
  toolCalls?: MockToolCall[];
  /**
   * Token counts to report (missing fields are estimated at 4 characters a token from the
   * request's messages and the reply); `false` reports none. Streams carry usage only when
   * the request asked for it with `stream_options.include_usage`.
   */
  usage?: Partial<Usage> | false;
  /** Default `tool_calls` when there are calls, else `stop`. */
  finishReason?: string;
  /** Default `split`. */
  dialect?: MockDialect;
  /** Code units of text, thinking or arguments per delta; default 4. */
  chunkSize?: number;
  /** Write each SSE event in pieces of this many bytes, a tick apart (splits UTF-8 sequences). */
  wireChunkBytes?: number;
  /** Pause before each SSE event, in milliseconds. */
  delayMs?: number;
  fault?: MockFault;
  /**
   * SSE data events sent before a `reset`, `malformed`, `hang` or `no_done` fault takes effect;
   * default half of them (all of them for `no_done`). The events are: one role chunk, the
   * thinking and text pieces, the tool-call chunks, the finish chunk, the usage chunk.
   */
  faultAfter?: number;
  /** `Retry-After` header, in seconds, sent with a `429` or `500` fault. */
  retryAfter?: number;
  /** `retry-after-ms` header sent with a `429` or `500` fault. */
  retryAfterMs?: number;
}

/** A chat request body as the client sent it. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

/** How the mock's response to one request ended. */
export type ResponseEnd = "completed" | "client_closed" | "reset";

/** One request the mock received, with how its response ended. */
export interface MockExchange {
  method: string;
  path: string;
  /** The `Authorization` header, or null. */
  authorization: string | null;
  /** The parsed body of a chat request, else null. */
  body: ChatRequestBody | null;
  /** Settles when the response has been sent, dropped, or abandoned by the client. */
  ended: Promise<ResponseEnd>;
}

/** Options for {@link startMockModel}. */
export interface MockModelOptions {
  /** Model ids `GET /v1/models` lists; default `["mock-model"]`. */
  models?: string[];
  /** Loop the script instead of answering "mock script exhausted" (benchmarks). */
  repeat?: boolean;
  /** Default 0: any free port. */
  port?: number;
  /** Called with each violation as it is recorded (the standalone server prints them). */
  onViolation?: (violation: string) => void;
}

const DEFAULT_CHUNK_SIZE = 4;
/** A fixed creation time keeps recorded responses byte-for-byte reproducible. */
const CREATED = 1_700_000_000;
const CHARS_PER_TOKEN = 4;
/** Pause before a `reset`, so bytes already written reach the client before the drop. */
const FLUSH_MS = 10;
const encoder = new TextEncoder();

/** Starts a mock model server on 127.0.0.1 answering `turns` in order; dispose to stop it. */
export function startMockModel(turns: MockTurn[] = [], options: MockModelOptions = {}): MockModel {
  return new MockModel(turns, options);
}

/** A running scripted model server; see the module doc for an example. */
export class MockModel implements AsyncDisposable {
  /** Base URL to configure as `base_url`, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseUrl: string;
  /** Every chat request body, in arrival order. */
  readonly requests: ChatRequestBody[] = [];
  /** Every request of any kind, with its `Authorization` header and how its response ended. */
  readonly exchanges: MockExchange[] = [];
  /** Broken tool-call pairings and unscripted requests; tests assert this stays empty. */
  readonly violations: string[] = [];

  readonly #script: MockTurn[];
  #next = 0;
  #callCount = 0;
  readonly #models: string[];
  readonly #repeat: boolean;
  readonly #onViolation: (violation: string) => void;
  readonly #open = new Set<AbortController>();
  #waiters: { index: number; resolve: (exchange: MockExchange) => void }[] = [];
  readonly #server: Deno.HttpServer<Deno.NetAddr>;

  constructor(turns: MockTurn[], options: MockModelOptions) {
    this.#script = [...turns];
    this.#models = options.models ?? ["mock-model"];
    this.#repeat = options.repeat ?? false;
    this.#onViolation = options.onViolation ?? (() => {});
    this.#server = Deno.serve({
      hostname: "127.0.0.1",
      port: options.port ?? 0,
      onListen() {},
      // A dropped stream is the `reset` fault doing its job, not an error worth logging.
      onError: () => new Response(null, { status: 500 }),
    }, (request) => this.#answer(request));
    this.baseUrl = `http://127.0.0.1:${this.#server.addr.port}/v1`;
  }

  /**
   * Resolves with request number `index` (0-based, any route) once it has arrived; rejects,
   * naming the request, if it has not within a minute (a client that never asks).
   */
  waitForExchange(index: number): Promise<MockExchange> {
    const arrived = this.exchanges[index];
    if (arrived) return Promise.resolve(arrived);
    const { promise, resolve } = Promise.withResolvers<MockExchange>();
    this.#waiters.push({ index, resolve });
    return withDeadline(promise, `request ${index + 1} to the mock model`);
  }

  /**
   * How the response to request number `index` ended, once it has; rejects, naming it, if the
   * request has not come or its response has not ended within a minute (a stream left open).
   */
  async waitForEnd(index: number): Promise<ResponseEnd> {
    const exchange = await this.waitForExchange(index);
    return await withDeadline(exchange.ended, `the end of the response to request ${index + 1}`);
  }

  /** Appends turns to the script. */
  push(...turns: MockTurn[]): void {
    this.#script.push(...turns);
  }

  /** Scripted turns not yet used (always the whole script in `repeat` mode once looped). */
  get remaining(): number {
    return this.#script.length - this.#next;
  }

  /** Ends open streams (as a dropped connection) and stops the server. */
  async close(): Promise<void> {
    for (const controller of this.#open) controller.abort();
    await this.#server.shutdown();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #answer(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/mock/log") {
      // For tests that run the mock as its own process (mock_model_server.ts).
      return Response.json({
        requests: this.requests,
        violations: this.violations,
        remaining: this.remaining,
      });
    }
    const ended = Promise.withResolvers<ResponseEnd>();
    const exchange: MockExchange = {
      method: request.method,
      path,
      authorization: request.headers.get("authorization"),
      body: null,
      ended: ended.promise,
    };
    this.exchanges.push(exchange);
    const ready = this.#waiters.filter((waiter) => waiter.index < this.exchanges.length);
    this.#waiters = this.#waiters.filter((waiter) => waiter.index >= this.exchanges.length);
    for (const waiter of ready) waiter.resolve(this.exchanges[waiter.index]!);
    if (request.method === "GET" && path === "/v1/models") {
      ended.resolve("completed");
      return Response.json({
        object: "list",
        data: this.#models.map((id) => ({
          id,
          object: "model",
          created: CREATED,
          owned_by: "mock",
        })),
      });
    }
    if (request.method !== "POST" || path !== "/v1/chat/completions") {
      ended.resolve("completed");
      return errorResponse(404, `Unknown route "${request.method} ${path}"`, "not_found");
    }
    const body = await request.json() as ChatRequestBody;
    exchange.body = body;
    this.requests.push(body);
    const number = this.requests.length;
    for (const problem of findPairingViolations(body.messages ?? [])) {
      this.#violate(`request ${number}: ${problem}`);
    }
    const turn = this.#takeTurn();
    if (!turn) {
      this.#violate(`request ${number}: mock script exhausted`);
      ended.resolve("completed");
      // x-should-retry stops a retrying client from burning its retries on a test bug.
      return errorResponse(
        500,
        `mock script exhausted: no scripted turn for request ${number}`,
        "mock_script_exhausted",
        { "x-should-retry": "false" },
      );
    }
    const control = new AbortController();
    this.#open.add(control);
    const finish = (end: ResponseEnd) => {
      this.#open.delete(control);
      ended.resolve(end);
    };
    const reply = this.#render(turn, body, number);
    if (turn.fault === "429" || turn.fault === "500" || turn.fault === "401") {
      finish("completed");
      return faultResponse(turn, exchange.authorization);
    }
    const plan = body.stream ? streamPlan(turn, reply) : jsonPlan(turn, reply);
    return planResponse(plan, control.signal, finish);
  }

  #violate(violation: string): void {
    this.violations.push(violation);
    this.#onViolation(violation);
  }

  #takeTurn(): MockTurn | undefined {
    if (this.#next >= this.#script.length && this.#repeat) this.#next = 0;
    const turn = this.#script[this.#next];
    if (turn) this.#next++;
    return turn;
  }

  #render(turn: MockTurn, body: ChatRequestBody, number: number): RenderedReply {
    const calls = (turn.toolCalls ?? []).map((call) => ({
      id: call.id === undefined ? `call_mock_${++this.#callCount}` : call.id,
      name: call.name,
      arguments: typeof call.arguments === "string"
        ? call.arguments
        : JSON.stringify(call.arguments ?? {}),
    }));
    const dialect = turn.dialect ?? "split";
    const finishReason = turn.finishReason ??
      (calls.length > 0 && dialect !== "stop_after_calls" ? "tool_calls" : "stop");
    const outputChars = (turn.text ?? "").length + (turn.thinking ?? "").length +
      calls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0);
    const wantsUsage = turn.usage !== false &&
      (!body.stream || body.stream_options?.include_usage === true);
    const usage = !wantsUsage ? null : estimateUsage(
      turn.usage || {},
      JSON.stringify(body.messages ?? []).length,
      outputChars,
    );
    return { id: `chatcmpl-mock-${number}`, model: body.model, calls, finishReason, usage };
  }
}

interface RenderedCall {
  id: string | null;
  name: string;
  arguments: string;
}

interface RenderedReply {
  id: string;
  model: string;
  calls: RenderedCall[];
  finishReason: string;
  usage: Usage | null;
}

function estimateUsage(given: Partial<Usage>, promptChars: number, outputChars: number): Usage {
  const prompt = given.prompt_tokens ?? Math.ceil(promptChars / CHARS_PER_TOKEN);
  const completion = given.completion_tokens ?? Math.ceil(outputChars / CHARS_PER_TOKEN);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: given.total_tokens ?? prompt + completion,
    ...(given.cost === undefined ? {} : { cost: given.cost }),
  };
}

function errorResponse(
  status: number,
  message: string,
  type: string,
  headers: Record<string, string> = {},
  code: string | null = null,
): Response {
  return Response.json({ error: { message, type, param: null, code } }, { status, headers });
}

function faultResponse(turn: MockTurn, authorization: string | null): Response {
  const headers: Record<string, string> = {};
  if (turn.retryAfter !== undefined) headers["retry-after"] = String(turn.retryAfter);
  if (turn.retryAfterMs !== undefined) headers["retry-after-ms"] = String(turn.retryAfterMs);
  if (turn.fault === "429") {
    return errorResponse(
      429,
      "Rate limit reached for mock-model: retry later",
      "rate_limit_error",
      headers,
      "rate_limit_exceeded",
    );
  }
  if (turn.fault === "401") {
    // Echo the credential the way careless servers do, so tests prove the client redacts it.
    const key = authorization?.replace(/^Bearer /, "") ?? "";
    return errorResponse(
      401,
      `Incorrect API key provided: ${key}`,
      "invalid_request_error",
      {},
      "invalid_api_key",
    );
  }
  return errorResponse(500, "The mock server had an error", "server_error", headers);
}

/** Splits text into pieces of `size` UTF-16 code units (surrogate pairs may be split). */
function piecesOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) {
    pieces.push(text.slice(start, start + size));
  }
  return pieces;
}

/** The `choices[0].delta` objects of a streamed reply, in order, then the finish delta. */
function streamDeltas(turn: MockTurn, reply: RenderedReply): Record<string, unknown>[] {
  const size = turn.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const dialect = turn.dialect ?? "split";
  const field = turn.thinkingField ?? "reasoning_content";
  const deltas: Record<string, unknown>[] = [{ role: "assistant", content: "" }];
  for (const piece of piecesOf(turn.thinking ?? "", size)) deltas.push({ [field]: piece });
  for (const piece of piecesOf(turn.text ?? "", size)) deltas.push({ content: piece });
  reply.calls.forEach((call, index) => {
    const head = {
      ...(dialect === "no_index" ? {} : { index }),
      ...(call.id === null ? {} : { id: call.id }),
      type: "function",
    };
    if (dialect === "whole") {
      deltas.push({ tool_calls: [{ ...head, function: call }] });
      return;
    }
    deltas.push({ tool_calls: [{ ...head, function: { name: call.name, arguments: "" } }] });
    for (const piece of piecesOf(call.arguments, size)) {
      const part = dialect === "no_index" ? {} : { index };
      deltas.push({ tool_calls: [{ ...part, function: { arguments: piece } }] });
    }
  });
  return deltas;
}

/** The SSE data payloads of a streamed reply, without the final `[DONE]`. */
function streamPayloads(turn: MockTurn, reply: RenderedReply): string[] {
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      id: reply.id,
      object: "chat.completion.chunk",
      created: CREATED,
      model: reply.model,
      choices,
      ...extra,
    });
  const payloads = streamDeltas(turn, reply).map((delta) =>
    chunk([{ index: 0, delta, finish_reason: null }])
  );
  payloads.push(chunk([{ index: 0, delta: {}, finish_reason: reply.finishReason }]));
  if (reply.usage) payloads.push(chunk([], { usage: reply.usage }));
  return payloads;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  const { promise, resolve } = Promise.withResolvers<void>();
  const timer = setTimeout(done, ms);
  signal.addEventListener("abort", done, { once: true });
  function done() {
    clearTimeout(timer);
    signal.removeEventListener("abort", done);
    resolve();
  }
  return promise;
}

/** What a response body sends: `pieces` in order, the fault at `faultAt`, then `trailer`. */
interface BodyPlan {
  pieces: string[];
  faultAt: number;
  /** Sent in place of the piece at `faultAt` before going on (the `malformed` fault). */
  insert: string | null;
  /** What happens at `faultAt` unless `insert` is set: stop, drop, or fall silent. */
  stop: "end" | "reset" | "hang";
  trailer: string;
  delayMs: number;
  wireChunkBytes: number | undefined;
  contentType: string;
}

function streamPlan(turn: MockTurn, reply: RenderedReply): BodyPlan {
  const payloads = streamPayloads(turn, reply).map((payload) => `data: ${payload}\n\n`);
  const half = payloads.length >> 1;
  return {
    pieces: payloads,
    faultAt: turn.fault === undefined
      ? payloads.length
      : turn.faultAfter ?? (turn.fault === "no_done" ? payloads.length : half),
    insert: turn.fault === "malformed" ? `data: {"choices":[{"delta":\n\n` : null,
    stop: turn.fault === "reset" ? "reset" : turn.fault === "hang" ? "hang" : "end",
    trailer: turn.fault === "no_done" ? "" : "data: [DONE]\n\n",
    delayMs: turn.delayMs ?? 0,
    wireChunkBytes: turn.wireChunkBytes,
    contentType: "text/event-stream",
  };
}

function jsonPlan(turn: MockTurn, reply: RenderedReply): BodyPlan {
  const field = turn.thinkingField ?? "reasoning_content";
  const message = {
    role: "assistant",
    content: turn.text ?? (reply.calls.length > 0 ? null : ""),
    ...(turn.thinking === undefined ? {} : { [field]: turn.thinking }),
    ...(reply.calls.length === 0 ? {} : {
      tool_calls: reply.calls.map((call) => ({
        ...(call.id === null ? {} : { id: call.id }),
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    }),
  };
  const text = JSON.stringify({
    id: reply.id,
    object: "chat.completion",
    created: CREATED,
    model: reply.model,
    choices: [{ index: 0, message, finish_reason: reply.finishReason }],
    ...(reply.usage ? { usage: reply.usage } : {}),
  });
  // Faults strike halfway through the JSON text; `malformed` simply ends there.
  const halves = [text.slice(0, text.length >> 1), text.slice(text.length >> 1)];
  const faulty = turn.fault === "reset" || turn.fault === "hang" || turn.fault === "malformed";
  return {
    pieces: halves,
    faultAt: faulty ? 1 : 2,
    insert: null,
    stop: turn.fault === "reset" ? "reset" : turn.fault === "hang" ? "hang" : "end",
    trailer: "",
    delayMs: turn.delayMs ?? 0,
    wireChunkBytes: turn.wireChunkBytes,
    contentType: "application/json",
  };
}

/** Resolves when `signal` aborts: a hang that ends with the client or the mock. */
function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  const { promise, resolve } = Promise.withResolvers<void>();
  signal.addEventListener("abort", () => resolve(), { once: true });
  return promise;
}

/** Sends `plan` as a response body; `closing` is the mock shutting down. */
function planResponse(
  plan: BodyPlan,
  closing: AbortSignal,
  finish: (end: ResponseEnd) => void,
): Response {
  const clientGone = new AbortController();
  const stop = AbortSignal.any([closing, clientGone.signal]);
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  // Events without a pause between them go out in one write, as a fast server's would;
  // one HTTP chunk per event would make the mock, not the client, the bottleneck of a bench.
  let unsent = "";
  const flush = () => {
    if (unsent && !stop.aborted) controller.enqueue(encoder.encode(unsent));
    unsent = "";
  };
  const write = async (text: string) => {
    if (plan.wireChunkBytes === undefined) {
      unsent += text;
      return;
    }
    const bytes = encoder.encode(text);
    for (let start = 0; start < bytes.length && !stop.aborted; start += plan.wireChunkBytes) {
      // A tick between pieces makes each piece its own read on the client side.
      if (start > 0) await pause(1, stop);
      if (!stop.aborted) controller.enqueue(bytes.slice(start, start + plan.wireChunkBytes));
    }
  };
  const drop = async () => {
    flush();
    // Let what was sent reach the client first: an error discards unsent buffers.
    while ((controller.desiredSize ?? 1) < 1 && !stop.aborted) await pause(1, stop);
    await pause(FLUSH_MS, stop);
    if (clientGone.signal.aborted) return;
    controller.error(new Deno.errors.ConnectionReset("mock connection reset"));
    finish("reset");
  };
  const run = async () => {
    for (const [index, piece] of plan.pieces.entries()) {
      if (index === plan.faultAt) {
        if (plan.insert === null) break;
        await write(plan.insert);
      }
      if (plan.delayMs) {
        flush();
        await pause(plan.delayMs, stop);
      }
      await write(piece);
    }
    flush();
    const faulted = plan.faultAt < plan.pieces.length && plan.insert === null;
    if (faulted && plan.stop === "hang") await untilAborted(stop);
    if (clientGone.signal.aborted) return;
    if (closing.aborted || (faulted && plan.stop !== "end")) return await drop();
    await write(plan.trailer);
    flush();
    controller.close();
    finish("completed");
  };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      void run();
    },
    cancel() {
      finish("client_closed");
      clientGone.abort();
    },
  });
  return new Response(body, {
    headers: { "content-type": plan.contentType, "cache-control": "no-cache" },
  });
}

/**
 * Checks that every assistant tool call is followed by exactly one tool message with its id,
 * before the next non-tool message, and that no tool message is orphaned or duplicated.
 *
 * @example
 * ```ts ignore
 * import assert from "node:assert/strict";
 * assert.deepEqual(findPairingViolations([
 *   { role: "assistant", content: null, tool_calls: [
 *     { id: "a", type: "function", function: { name: "x", arguments: "{}" } },
 *   ] },
 *   { role: "user", content: "hi" },
 * ]), ['message 1: tool call "a" (x) has no tool message']);
 * ```
 */
export function findPairingViolations(messages: readonly ChatMessage[]): string[] {
  const problems: string[] = [];
  /** The latest assistant message's calls still expecting results: id → name, answered. */
  let open: Map<string, { name: string; answered: boolean }> | null = null;
  const closeOpen = (at: number) => {
    for (const [id, call] of open ?? []) {
      if (!call.answered) {
        problems.push(`message ${at}: tool call "${id}" (${call.name}) has no tool message`);
      }
    }
    open = null;
  };
  messages.forEach((message, at) => {
    if (message.role === "tool") {
      const call = open?.get(message.tool_call_id);
      if (!call) {
        problems.push(
          `message ${at}: tool message for "${message.tool_call_id}" answers no tool call of the assistant message before it`,
        );
      } else if (call.answered) {
        problems.push(`message ${at}: duplicate tool message for "${message.tool_call_id}"`);
      } else {
        call.answered = true;
      }
      return;
    }
    closeOpen(at);
    if (message.role === "assistant" && message.tool_calls?.length) {
      open = new Map();
      for (const call of message.tool_calls) {
        if (open.has(call.id)) problems.push(`message ${at}: duplicate tool call id "${call.id}"`);
        open.set(call.id, { name: call.function.name, answered: false });
      }
    }
  });
  closeOpen(messages.length);
  return problems;
}
