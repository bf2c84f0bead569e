/**
 * The OpenAI-compatible provider: chat completions over HTTP with `fetch`, streamed, with
 * bounded retries (`_with_retries.ts`), an idle timeout, failures worded for a person
 * (`_failures.ts`) and its own reading of replies (`_read_reply.ts`). The request is one POST;
 * the SDK cost 50 ms of start-up and 20 MB of memory for it (docs/decisions.md), so it is not
 * used here.
 * @module
 */
import type { Config } from "../config/mod.ts";
import { IdleWatchdog } from "./_idle_watchdog.ts";
import {
  AttemptFailure,
  connectionFailure,
  type Endpoint,
  type Failure,
  httpFailure,
  internalFailure,
  noNetFailure,
  serverMessage,
  silenceFailure,
} from "./_failures.ts";
import { readChatStream, readCompletion } from "./_read_reply.ts";
import { type Progress, type RetryPolicy, withRetries } from "./_with_retries.ts";
import { RequestBodies, type RequestContent } from "./_request_body.ts";
import { listModels, ModelListError, modelNotFoundFix } from "./list_models.ts";
import { ProviderError, type ProviderErrorCode } from "./provider_error.ts";
import type { ChatMessage, ChatRequest, Provider, ProviderEvent } from "./types.ts";

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

class OpenAIProvider implements Provider {
  readonly model: string;
  readonly #config: Config;
  readonly #baseUrl: string;
  readonly #apiKey: string;
  #generatedIds = 0;
  /** The conversation's bodies, grown round by round: the history is sent with every request. */
  readonly #chatBodies = new RequestBodies();
  /** One-off requests (summaries, analyses) apart, so they do not restart the conversation's. */
  readonly #otherBodies = new RequestBodies();

  constructor(options: OpenAIProviderOptions) {
    this.model = options.model;
    this.#config = options.config;
    this.#baseUrl = options.baseUrl;
    this.#apiKey = options.apiKey;
  }

  chat(request: ChatRequest): AsyncIterable<ProviderEvent> {
    return withRetries(
      request.signal,
      this.#retryPolicy(),
      (progress) => this.#streamOnce(request, progress),
    );
  }

  async complete(messages: ChatMessage[], signal: AbortSignal): Promise<string> {
    let text = "";
    const events = withRetries(
      signal,
      this.#retryPolicy(),
      () => this.#requestOnce(messages, signal),
    );
    for await (const event of events) {
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

  #retryPolicy(): RetryPolicy {
    return {
      maxRetries: this.#config.get("max_retries"),
      classify: (error) => this.#classify(error),
      describe: (failure, attempts) => this.#describe(failure, attempts),
    };
  }

  /** One streamed request: deltas as they come, then tool calls, usage and `done`. */
  async *#streamOnce(request: ChatRequest, progress: Progress): AsyncGenerator<ProviderEvent> {
    using watchdog = new IdleWatchdog(this.#idleTimeoutMs());
    const signal = AbortSignal.any([request.signal, watchdog.signal]);
    let isAnswering = false;
    try {
      const response = await this.#post(this.#chatBodies, {
        messages: request.messages,
        tools: request.tools,
        fields: { ...this.#settings(), stream: true, stream_options: { include_usage: true } },
      }, signal);
      isAnswering = true;
      watchdog.touch();
      yield* readChatStream(response, {
        baseUrl: this.#baseUrl,
        newCallId: () => `call_${++this.#generatedIds}`,
        onRead: () => watchdog.touch(),
        signal,
        hasYielded: () => progress.hasYielded,
      });
    } catch (error) {
      if (!watchdog.fired || request.signal.aborted) throw error;
    }
    // The idle timer either broke a read (caught above) or ended the stream early.
    if (watchdog.fired && !request.signal.aborted) throw this.#silence(isAnswering);
  }

  /** One non-streaming request, bounded by the idle timeout as a whole. */
  async *#requestOnce(messages: ChatMessage[], outer: AbortSignal): AsyncGenerator<ProviderEvent> {
    using watchdog = new IdleWatchdog(this.#idleTimeoutMs());
    const signal = AbortSignal.any([outer, watchdog.signal]);
    let text: string;
    let contentType: string | null;
    try {
      const response = await this.#post(this.#otherBodies, {
        messages,
        tools: [],
        fields: { ...this.#settings(), stream: false },
      }, signal);
      contentType = response.headers.get("content-type");
      text = await response.text();
    } catch (error) {
      if (watchdog.fired && !outer.aborted) throw this.#silence(false);
      throw error;
    }
    yield* readCompletion(text, contentType, this.#baseUrl);
  }

  /**
   * POSTs one chat completions request. A non-2xx status becomes a classified failure with the
   * server's own message; retries are the caller's (they honour max_retries and Retry-After).
   */
  async #post(
    bodies: RequestBodies,
    content: RequestContent,
    signal: AbortSignal,
  ): Promise<Response> {
    const response = await fetch(`${this.#baseUrl.replace(/\/+$/, "")}/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: content.fields.stream ? "text/event-stream" : "application/json",
        ...(this.#apiKey ? { authorization: `Bearer ${this.#apiKey}` } : {}),
      },
      body: bodies.build(content),
      signal,
    });
    if (response.ok) return response;
    const text = await response.text().catch(() => "");
    // Only the server can say whether the model or the whole path is missing: ask it.
    const notFoundFix = response.status === 404
      ? await modelNotFoundFix({ ...this.#endpoint(), apiKey: this.#apiKey }, signal)
      : "";
    throw new AttemptFailure(
      httpFailure(
        { status: response.status, headers: response.headers, message: serverMessage(text) },
        this.#endpoint(),
        notFoundFix,
      ),
    );
  }

  /** The request fields every call shares, from the config. */
  #settings() {
    const temperature = this.#config.get("temperature");
    const maxTokens = this.#config.get("max_tokens");
    const reasoning = this.#config.get("reasoning");
    return {
      model: this.model,
      ...(temperature === null ? {} : { temperature }),
      ...(maxTokens > 0 ? { max_tokens: maxTokens } : {}),
      ...(reasoning === "" ? {} : { reasoning_effort: reasoning }),
    };
  }

  #endpoint(): Endpoint {
    return {
      baseUrl: this.#baseUrl,
      model: this.model,
      apiKeyEnv: this.#config.get("api_key_env"),
      hasKey: this.#apiKey !== "",
    };
  }

  #idleTimeoutMs(): number {
    return this.#config.get("stream_idle_timeout") * 1000;
  }

  #silence(isAnswering: boolean): AttemptFailure {
    return new AttemptFailure(
      silenceFailure(this.#config.get("stream_idle_timeout"), isAnswering),
    );
  }

  #classify(error: unknown): Failure {
    if (error instanceof AttemptFailure) return error.failure;
    if (error instanceof Deno.errors.NotCapable) return noNetFailure(this.#baseUrl);
    if (error instanceof TypeError) return connectionFailure(error, this.#baseUrl);
    return internalFailure(error);
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
