/**
 * The OpenAI-compatible provider: chat completions over HTTP with `fetch`, streamed, with bounded
 * retries, an idle timeout and tolerant tool-call reassembly. The request is one POST; the SDK
 * cost 50 ms of start-up and 20 MB of memory for it (docs/decisions.md), so it is not used here.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { ToolSchema } from "../tools/types.ts";
import { IdleWatchdog } from "./_idle_watchdog.ts";
import { describeHtml, HTML_FIX } from "./describe_html.ts";
import { CONNECTION_FIX, listModels, ModelListError } from "./list_models.ts";
import { readServerSentEvents, type ServerSentEvent } from "./_sse.ts";
import { readUsage, TurnAssembler } from "./_turn_assembler.ts";
import { ProviderError, type ProviderErrorCode } from "./provider_error.ts";
import { retryDelayMs } from "./retry_delay.ts";
import type { ChatMessage, ChatRequest, Provider, ProviderEvent } from "./types.ts";

/** A server asking for a longer pause than this gets an error instead of a frozen prompt. */
const MAX_RETRY_WAIT_MS = 60_000;
/** Error pages (an HTML 502 from a proxy) are cut to this in messages. */
const MAX_SERVER_MESSAGE_CHARS = 300;
/** Shortest key we redact from messages: shorter strings would mangle ordinary words. */
const MIN_REDACTED_KEY_CHARS = 4;

/** Options for {@link createOpenAIProvider}. */
export interface OpenAIProviderOptions {
  /** Sampling, retry and timeout settings, and `api_key_env` for messages. */
  config: Config;
  /** Endpoint up to and including `/v1`, e.g. `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  /** The key read from `api_key_env`; "" when none is set. */
  apiKey: string;
}

/**
 * Creates a provider for any OpenAI-compatible chat completions endpoint.
 *
 * @example
 * ```ts ignore
 * const provider = createOpenAIProvider({ config, baseUrl, model: "qwen3", apiKey: "" });
 * for await (const event of provider.chat({ messages, tools: [], signal })) console.log(event);
 * ```
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): Provider {
  return new OpenAIProvider(options);
}

/** Why one attempt failed, and whether another attempt may help. */
interface Failure {
  code: ProviderErrorCode;
  /** What happened, e.g. `HTTP 500: upstream error`. */
  detail: string;
  /** What the user can do, the message's last part. */
  fix: string;
  retryable: boolean;
  /** Response headers, for Retry-After. */
  headers?: Headers;
}

/** A failure detected by our own reading of a response. */
class AttemptFailure extends Error {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.detail);
    this.failure = failure;
  }
}

/** Whether anything reached the caller during this request, which makes a retry unsafe. */
interface Progress {
  yielded: boolean;
}

const CANCELLED: ProviderEvent = { type: "done", reason: "cancelled" };

class OpenAIProvider implements Provider {
  readonly model: string;
  readonly #config: Config;
  readonly #baseUrl: string;
  readonly #apiKey: string;
  #generatedIds = 0;

  constructor(options: OpenAIProviderOptions) {
    this.model = options.model;
    this.#config = options.config;
    this.#baseUrl = options.baseUrl;
    this.#apiKey = options.apiKey;
  }

  chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    return this.#withRetries(request.signal, (progress) => this.#streamOnce(request, progress));
  }

  async complete(messages: ChatMessage[], signal: AbortSignal): Promise<string> {
    let text = "";
    for await (
      const event of this.#withRetries(signal, () => this.#requestOnce(messages, signal))
    ) {
      if (event.type === "text") text += event.delta;
      else if (event.type === "error") {
        throw new ProviderError(event.code as ProviderErrorCode, event.message);
      } else if (event.type === "done" && event.reason === "cancelled") throw signal.reason;
    }
    return text;
  }

  /** The model ids `GET {baseUrl}/models` lists. */
  async listModels(): Promise<string[]> {
    try {
      return await listModels(this.#baseUrl, this.#apiKey);
    } catch (error) {
      if (!(error instanceof ModelListError)) throw error;
      throw new ProviderError(
        "connection",
        `Cannot list the models at "${this.#baseUrl}": ${error.message}` +
          (error.fix ? `: ${error.fix}` : ""),
      );
    }
  }

  /** Runs attempts until one succeeds, a failure is final, or `signal` aborts; never throws. */
  async *#withRetries(
    signal: AbortSignal,
    attempt: (progress: Progress) => AsyncGenerator<ProviderEvent>,
  ): AsyncGenerator<ProviderEvent> {
    const progress: Progress = { yielded: false };
    const maxRetries = this.#config.get("max_retries");
    for (let attempts = 1;; attempts++) {
      let failure: Failure;
      try {
        for await (const event of attempt(progress)) {
          // Deltas already parsed from the last read must not outlive a cancel.
          if (signal.aborted) break;
          if (event.type === "text" || event.type === "thinking") progress.yielded = true;
          yield event;
        }
        if (signal.aborted) yield CANCELLED;
        return;
      } catch (error) {
        if (signal.aborted) {
          yield CANCELLED;
          return;
        }
        failure = this.#classify(error);
      }
      const delay = failure.retryable && !progress.yielded && attempts <= maxRetries
        ? retryDelayMs(attempts - 1, failure.headers)
        : null;
      if (delay === null || delay > MAX_RETRY_WAIT_MS) {
        yield { type: "error", code: failure.code, message: this.#describe(failure, attempts) };
        return;
      }
      yield {
        type: "retry",
        reason: failure.detail,
        delay_ms: delay,
        attempt: attempts + 1,
        attempts: maxRetries + 1,
      };
      if (!(await pauseUnlessAborted(delay, signal))) {
        yield CANCELLED;
        return;
      }
    }
  }

  /** One streamed request: deltas as they come, then tool calls, usage and `done`. */
  async *#streamOnce(request: ChatRequest, progress: Progress): AsyncGenerator<ProviderEvent> {
    using watchdog = new IdleWatchdog(this.#idleTimeoutMs());
    const signal = AbortSignal.any([request.signal, watchdog.signal]);
    try {
      const response = await this.#post({
        ...this.#settings(request.messages, request.tools),
        stream: true,
        stream_options: { include_usage: true },
      }, signal);
      watchdog.touch();
      await this.#refuseHtml(response);
      const turn = new TurnAssembler(() => `call_${++this.#generatedIds}`);
      let sawDone = false;
      // `[DONE]` must be told apart from a clean early close: the SSE body is read line by line.
      for await (
        const event of readServerSentEvents(this.#body(response), () => watchdog.touch())
      ) {
        if (event.data.trim() === "[DONE]") {
          sawDone = true;
          break;
        }
        yield* turn.add(this.#parseChunk(event));
      }
      if (request.signal.aborted) return;
      if (watchdog.fired) throw this.#timeout();
      if (!sawDone && turn.finishReason === null) {
        throw new AttemptFailure({
          code: "incomplete_stream",
          detail: "the stream ended before the reply was finished",
          fix: "retry the turn",
          retryable: !progress.yielded,
        });
      }
      yield* turn.finish();
    } catch (error) {
      if (watchdog.fired && !request.signal.aborted) throw this.#timeout();
      throw error;
    }
  }

  /** One non-streaming request, bounded by the idle timeout as a whole. */
  async *#requestOnce(messages: ChatMessage[], outer: AbortSignal): AsyncGenerator<ProviderEvent> {
    using watchdog = new IdleWatchdog(this.#idleTimeoutMs());
    const signal = AbortSignal.any([outer, watchdog.signal]);
    let text: string;
    try {
      const response = await this.#post({ ...this.#settings(messages, []), stream: false }, signal);
      text = await response.text();
    } catch (error) {
      if (watchdog.fired && !outer.aborted) throw this.#timeout();
      throw error;
    }
    const page = describeHtml(text, null);
    if (page) throw this.#htmlPage(page);
    const reply = this.#parseJson(text, "response");
    const choice = Array.isArray(reply.choices) ? reply.choices[0] : undefined;
    const message = isRecord(choice) && isRecord(choice.message) ? choice.message : null;
    if (!message) throw this.#malformed(`no "choices[0].message" in ${JSON.stringify(cut(text))}`);
    yield { type: "text", delta: typeof message.content === "string" ? message.content : "" };
    const usage = readUsage(reply.usage);
    if (usage) yield { type: "usage", usage };
    yield { type: "done", reason: "stop" };
  }

  /**
   * POSTs one chat completions request. A non-2xx status becomes a classified failure with the
   * server's own message; retries are the caller's (they honour max_retries and Retry-After).
   */
  async #post(body: Record<string, unknown>, signal: AbortSignal): Promise<Response> {
    const response = await fetch(`${this.#baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: body.stream ? "text/event-stream" : "application/json",
        ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    throw new AttemptFailure(
      this.#httpFailure(response.status, errorMessage(text), response.headers),
    );
  }

  /** The request fields every call shares, from the config. */
  #settings(messages: ChatMessage[], tools: ToolSchema[]) {
    const temperature = this.#config.get("temperature");
    const maxTokens = this.#config.get("max_tokens");
    const reasoning = this.#config.get("reasoning");
    return {
      model: this.model,
      messages: messages.map(toWireMessage),
      ...(tools.length > 0 ? { tools: tools.map(toWireTool) } : {}),
      ...(temperature === null ? {} : { temperature }),
      ...(maxTokens > 0 ? { max_tokens: maxTokens } : {}),
      ...(reasoning === "" ? {} : { reasoning_effort: reasoning }),
    };
  }

  #idleTimeoutMs(): number {
    return this.#config.get("stream_idle_timeout") * 1000;
  }

  /** A proxy or login page answers 200 with HTML, which an SSE reader sees as an empty stream. */
  async #refuseHtml(response: Response): Promise<void> {
    const type = response.headers.get("content-type");
    if (!type || !/\bhtml\b/i.test(type)) return;
    throw this.#htmlPage(describeHtml(await response.text(), type) ?? "an HTML page");
  }

  #htmlPage(page: string): AttemptFailure {
    return new AttemptFailure({
      code: "bad_response",
      detail: `"${this.#baseUrl}" answered with ${page}, not a model reply`,
      fix: HTML_FIX,
      retryable: false,
    });
  }

  #body(response: Response): ReadableStream<Uint8Array> {
    if (response.body) return response.body;
    throw this.#malformed("the response has no body");
  }

  #parseChunk(event: ServerSentEvent): Record<string, unknown> {
    const chunk = this.#parseJson(event.data, "data line");
    const error = chunk.error;
    if (event.event === "error" || error !== undefined) {
      const message = isRecord(error) && typeof error.message === "string"
        ? error.message
        : JSON.stringify(error ?? chunk);
      throw new AttemptFailure({
        code: "server_error",
        detail: `the server reported an error mid-stream: ${cut(message)}`,
        fix: "retry the turn",
        retryable: false,
      });
    }
    return chunk;
  }

  #parseJson(text: string, what: string): Record<string, unknown> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw this.#malformed(`${what} is not JSON: ${JSON.stringify(cut(text))}`);
    }
    if (isRecord(value)) return value;
    throw this.#malformed(`${what} is not a JSON object: ${JSON.stringify(cut(text))}`);
  }

  #malformed(detail: string): AttemptFailure {
    return new AttemptFailure({
      code: "bad_response",
      detail: `malformed reply from "${this.#baseUrl}": ${detail}`,
      fix: "check that base_url points at an OpenAI-compatible /v1 endpoint",
      retryable: false,
    });
  }

  #timeout(): AttemptFailure {
    return new AttemptFailure({
      code: "timeout",
      detail: `no data for ${this.#config.get("stream_idle_timeout")} s`,
      fix: "retry, or raise stream_idle_timeout",
      retryable: false,
    });
  }

  #classify(error: unknown): Failure {
    if (error instanceof AttemptFailure) return error.failure;
    const cause = error;
    if (cause instanceof Deno.errors.NotCapable) {
      return {
        code: "connection",
        detail: `no network permission for "${this.#baseUrl}"`,
        fix: `restart replio with --allow-net=${hostPort(this.#baseUrl)}`,
        retryable: false,
      };
    }
    if (error instanceof TypeError) {
      // Deno reports refused connections and bodies cut mid-read as TypeError.
      return {
        code: "connection",
        detail: `connection to "${this.#baseUrl}" failed: ${describeCause(cause)}`,
        fix: CONNECTION_FIX,
        retryable: true,
      };
    }
    return {
      code: "internal",
      detail: describeCause(error),
      fix: "report this as a replio bug",
      retryable: false,
    };
  }

  #httpFailure(status: number, message: string, headers: Headers): Failure {
    const detail = `HTTP ${status}: ${message}`;
    const hint = headers.get("x-should-retry");
    const retryable = hint === "true" || (hint !== "false" && (status === 429 || status >= 500));
    const env = this.#config.get("api_key_env");
    if (status === 401 || status === 403) {
      const fix = this.#apiKey
        ? `set ${env} to a valid API key`
        : `no API key is set: set ${env} to your API key`;
      return { code: "auth", detail, fix, retryable: false };
    }
    if (status === 429) {
      return {
        code: "rate_limit",
        detail,
        fix: "wait a minute and retry, or raise max_retries",
        retryable,
        headers,
      };
    }
    if (status >= 500) {
      return {
        code: "server_error",
        detail,
        fix: `retry later, or check the server at "${this.#baseUrl}"`,
        retryable,
        headers,
      };
    }
    const fix = status === 404
      ? `check that model "${this.model}" exists at "${this.#baseUrl}": set model or pass --model`
      : "check model, max_tokens, temperature and reasoning in the config";
    return { code: "bad_request", detail, fix, retryable: false };
  }

  /** The final message; the API key never survives into it, whatever the server echoed. */
  #describe(failure: Failure, attempts: number): string {
    const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
    const message = `Cannot get a reply from model "${this.model}"${tries}: ${failure.detail}: ` +
      failure.fix;
    return this.#apiKey.length >= MIN_REDACTED_KEY_CHARS
      ? message.replaceAll(this.#apiKey, "[redacted]")
      : message;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Cuts server text to message size, on one line. */
function cut(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > MAX_SERVER_MESSAGE_CHARS
    ? `${line.slice(0, MAX_SERVER_MESSAGE_CHARS)}…`
    : line;
}

/** The server's own words from an error body: `{"error": {"message"}}`, else the text itself. */
function errorMessage(text: string): string {
  try {
    const body = JSON.parse(text);
    const error = isRecord(body) ? body.error ?? body : undefined;
    if (isRecord(error) && typeof error.message === "string") return cut(error.message);
    if (typeof error === "string") return cut(error);
  } catch {
    // Not JSON (an HTML error page from a proxy): the text, cut to one line, says what came back.
  }
  return cut(text) || "no details";
}

function describeCause(error: unknown): string {
  return cut(error instanceof Error ? error.message : String(error));
}

/** Only the fields servers accept: the session's `reasoning` stays out of requests. */
function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "assistant":
      return {
        role: "assistant",
        content: message.content,
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    default:
      return message;
  }
}

function toWireTool(tool: ToolSchema): ToolSchema {
  return {
    type: "function",
    function: {
      name: tool.function.name,
      description: tool.function.description,
      parameters: { ...tool.function.parameters },
    },
  };
}

/** Waits `ms`; false when `signal` aborted first. */
function pauseUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  const { promise, resolve } = Promise.withResolvers<boolean>();
  const onAbort = () => {
    clearTimeout(timer);
    resolve(false);
  };
  const timer = setTimeout(() => {
    signal.removeEventListener("abort", onAbort);
    resolve(true);
  }, ms);
  signal.addEventListener("abort", onAbort, { once: true });
  return promise;
}

/** `host:port` of a URL, as `--allow-net` names it. */
function hostPort(url: string): string {
  const parsed = new URL(url);
  return parsed.port
    ? parsed.host
    : `${parsed.hostname}:${parsed.protocol === "https:" ? 443 : 80}`;
}
