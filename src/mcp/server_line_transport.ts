/**
 * The stdio transport of `replio mcp`: one JSON-RPC message per line in, one per line out, with
 * the replies the SDK's own stdio transport leaves out. A line that is not JSON gets -32700 and a
 * message that is not JSON-RPC -32600, instead of silence. A batch (a JSON array) is answered as
 * the negotiated protocol version says: MCP 2025-03-26 allowed batches, so there they run and
 * their replies come back as one array; every other version has none, so a batch gets -32600.
 * @module
 */
import {
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type RequestId,
  type Transport,
} from "./_sdk.ts";
import type { ParamsRefusal } from "./screen_params.ts";

/** The protocol versions whose transports carry JSON-RPC batches. */
export const BATCH_VERSIONS: readonly string[] = ["2025-03-26"];

/** A reply the transport writes itself: MCP's schema has no null id, so an unknown one is left out. */
type ErrorReply = {
  jsonrpc: "2.0";
  id?: RequestId;
  error: { code: number; message: string };
};

/** A batch being answered: the ids still running, and the replies so far, in arrival order. */
interface OpenBatch {
  waiting: Set<RequestId>;
  replies: unknown[];
  /** Until every message of the batch was handed on, more requests may join `waiting`. */
  isDelivering: boolean;
  isAnswered: boolean;
}

const encoder = new TextEncoder();

/** The server side of MCP over a pair of byte streams (stdin and stdout for `replio mcp`). */
export class LineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  readonly #input: ReadableStream<Uint8Array>;
  readonly #output: WritableStreamDefaultWriter<Uint8Array>;
  /** The version the server answered `initialize` with; null before that. */
  #version: string | null = null;
  readonly #initializeIds = new Set<RequestId>();
  /** The batch each request id belongs to, while it runs. */
  readonly #batches = new Map<RequestId, OpenBatch>();
  #reader: ReadableStreamDefaultReader<string> | null = null;
  #isClosed = false;

  readonly #screen: (message: JSONRPCMessage) => ParamsRefusal | null;

  /**
   * Reads messages from `input` and writes replies to `output`; nothing else may write there.
   * A request `screen` refuses is answered with its error and never reaches the server.
   */
  constructor(options: {
    input: ReadableStream<Uint8Array>;
    output: WritableStream<Uint8Array>;
    screen?: (message: JSONRPCMessage) => ParamsRefusal | null;
  }) {
    this.#input = options.input;
    this.#output = options.output.getWriter();
    this.#screen = options.screen ?? (() => null);
  }

  start(): Promise<void> {
    void this.#read().catch((error: unknown) => {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      void this.close();
    });
    return Promise.resolve();
  }

  /** Ends reading and tells the server; the client closing its end does the same. */
  async close(): Promise<void> {
    if (this.#isClosed) return;
    this.#isClosed = true;
    await this.#reader?.cancel().catch(() => {});
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = "id" in message ? message.id : undefined;
    if (id !== undefined && ("result" in message || "error" in message)) {
      this.#noteVersion(id, message);
      const batch = this.#batches.get(id);
      if (batch) {
        this.#batches.delete(id);
        batch.waiting.delete(id);
        batch.replies.push(message);
        await this.#answerBatch(batch);
        return;
      }
    }
    await this.#write(message);
  }

  async #read(): Promise<void> {
    this.#reader = this.#input.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const read = await this.#reader.read();
      if (read.done) break;
      buffer += read.value;
      let end: number;
      while ((end = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
        await this.#receive(line);
      }
    }
    // The client closed its end: it is gone, whatever was half-written after the last newline.
    await this.close();
  }

  async #receive(line: string): Promise<void> {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      await this.#write(errorReply(
        undefined,
        ErrorCode.ParseError,
        `Parse error: ${error.message}: send one JSON-RPC 2.0 message per line`,
      ));
      return;
    }
    if (Array.isArray(value)) {
      await this.#receiveBatch(value);
      return;
    }
    const checked = checkMessage(value);
    if (isReply(checked)) await this.#write(checked);
    else await this.#deliver(checked);
  }

  async #receiveBatch(items: unknown[]): Promise<void> {
    if (this.#version === null || !BATCH_VERSIONS.includes(this.#version)) {
      const why = this.#version === null
        ? "no protocol version is negotiated yet: send initialize on a line of its own first"
        : `protocol version ${this.#version} has no batches: send each message on a line of its own`;
      await this.#write(errorReply(undefined, ErrorCode.InvalidRequest, `Invalid Request: ${why}`));
      return;
    }
    if (items.length === 0) {
      await this.#write(errorReply(
        undefined,
        ErrorCode.InvalidRequest,
        "Invalid Request: the batch is empty: send at least one message in it",
      ));
      return;
    }
    const batch: OpenBatch = {
      waiting: new Set(),
      replies: [],
      isDelivering: true,
      isAnswered: false,
    };
    const messages: JSONRPCMessage[] = [];
    for (const item of items) {
      const checked = checkMessage(item);
      if (isReply(checked)) {
        batch.replies.push(checked);
        continue;
      }
      if ("method" in checked && "id" in checked) {
        batch.waiting.add(checked.id);
        this.#batches.set(checked.id, batch);
      }
      messages.push(checked);
    }
    for (const message of messages) await this.#deliver(message);
    batch.isDelivering = false;
    await this.#answerBatch(batch);
  }

  /**
   * Writes the batch's replies as one array once nothing in it still runs; a batch of only
   * notifications gets no reply at all (JSON-RPC 2.0).
   */
  async #answerBatch(batch: OpenBatch): Promise<void> {
    if (batch.isDelivering || batch.isAnswered || batch.waiting.size > 0) return;
    batch.isAnswered = true;
    if (batch.replies.length > 0) await this.#write(batch.replies);
  }

  async #deliver(message: JSONRPCMessage): Promise<void> {
    const refusal = this.#screen(message);
    if (refusal && "id" in message) {
      await this.send(errorReply(message.id, refusal.code, refusal.message));
      return;
    }
    if ("method" in message && message.method === "initialize" && "id" in message) {
      this.#initializeIds.add(message.id);
    }
    this.onmessage?.(message);
    // A cancelled request gets no reply (MCP), so its batch must stop waiting for one.
    if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const batch = id === undefined ? undefined : this.#batches.get(id);
      if (batch && id !== undefined) {
        this.#batches.delete(id);
        batch.waiting.delete(id);
        await this.#answerBatch(batch);
      }
    }
  }

  /** Remembers the version the server chose when `message` answers an `initialize`. */
  #noteVersion(id: RequestId, message: JSONRPCMessage): void {
    if (!this.#initializeIds.delete(id) || !("result" in message)) return;
    const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof version === "string") this.#version = version;
  }

  async #write(message: unknown): Promise<void> {
    if (this.#isClosed) return;
    await this.#output.write(encoder.encode(JSON.stringify(message) + "\n"));
  }
}

/** Marks a reply the transport made itself, so it is written, never handed to the server. */
const OWN_REPLY = Symbol("own reply");

/**
 * The message `value` is, or the -32600 reply it earns: the id it carries when it has a usable
 * one, so the client can tell which request was refused.
 */
function checkMessage(value: unknown): JSONRPCMessage | ErrorReply & { [OWN_REPLY]: true } {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const id = (value as { id?: unknown } | null)?.id;
  const usable = typeof id === "string" || typeof id === "number" ? id : undefined;
  const reply = errorReply(usable, ErrorCode.InvalidRequest, invalidRequestMessage(value));
  return { ...reply, [OWN_REPLY]: true };
}

/** The -32600 message for `value`, no JSON-RPC message: what is wrong, and what to send. */
export function invalidRequestMessage(value: unknown): string {
  return `Invalid Request: ${describeInvalid(value)}: send {"jsonrpc": "2.0", "id": 1, ` +
    `"method": "tools/list"} or another JSON-RPC 2.0 message`;
}

function isReply(
  checked: JSONRPCMessage | ErrorReply & { [OWN_REPLY]: true },
): checked is ErrorReply & { [OWN_REPLY]: true } {
  return OWN_REPLY in checked;
}

/** What makes `value` no JSON-RPC message, in the words of the JSON-RPC 2.0 spec. */
function describeInvalid(value: unknown): string {
  if (typeof value !== "object" || value === null) {
    return `expected an object, got ${JSON.stringify(value)}`;
  }
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") {
    return `"jsonrpc" must be "2.0", got ${JSON.stringify(message.jsonrpc ?? null)}`;
  }
  if ("id" in message && typeof message.id !== "string" && typeof message.id !== "number") {
    return `"id" must be a string or a number, got ${JSON.stringify(message.id)}`;
  }
  if (!("method" in message) && !("result" in message) && !("error" in message)) {
    return `it has no "method", "result" or "error"`;
  }
  if ("method" in message && typeof message.method !== "string") {
    return `"method" must be a string, got ${JSON.stringify(message.method)}`;
  }
  if ("params" in message && (typeof message.params !== "object" || message.params === null)) {
    return `"params" must be an object, got ${JSON.stringify(message.params)}`;
  }
  const known = ["jsonrpc", "id", "method", "params", "result", "error"];
  const extra = Object.keys(message).filter((key) => !known.includes(key));
  if (extra.length > 0) return `unknown member "${extra[0]}"`;
  return "it is neither a request, a notification nor a response";
}

function errorReply(id: RequestId | undefined, code: number, message: string): ErrorReply {
  return { jsonrpc: "2.0", ...(id === undefined ? {} : { id }), error: { code, message } };
}
