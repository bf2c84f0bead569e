/**
 * `replio mcp --http`, and `/mcp` of `replio serve`: the tool server of server.ts over MCP's
 * Streamable HTTP transport (the SDK's, on web-standard `Request` and `Response`), one server per
 * session. The listener and its access checks (token, Origin, Host) belong to the host that
 * mounts {@link McpHttpEndpoint.answer}; this module reads and checks the JSON-RPC body itself,
 * so a bad one gets the same words as on stdio.
 * @module
 */
import type { JSONRPCMessage } from "./_sdk.ts";
import { SessionEvents } from "./http_server_events.ts";
import type { WebStandardStreamableHTTPServerTransport } from "./http_server_sdk.ts";
import type { McpServeOptions, ToolServer } from "./server.ts";

/** Options of {@link createMcpHttpEndpoint}. */
export interface McpHttpOptions extends McpServeOptions {
  /** The largest request body read, in bytes; a larger one gets 413 before it is read. */
  maxBodyBytes: number;
}

/** The MCP server on one path, answering GET, POST and DELETE there. */
export interface McpHttpEndpoint {
  /** Answers one request; the host has already checked who may send it. */
  answer(request: Request): Promise<Response>;
  /**
   * Ends every session: running calls are cancelled (their processes killed) and open streams
   * end; resolves once every call has ended. Later requests get 503.
   */
  close(): Promise<void>;
}

/**
 * Sessions kept at once. A client rarely ends its session (DELETE), so without a bound a
 * long-running server would keep every session it ever opened; past it, the one used least
 * recently that runs no call is ended, and its client starts a new one on its 404 (MCP).
 */
const MAX_SESSIONS = 100;

/**
 * Milliseconds a client waits before resuming a stream it lost (the SSE `retry` field): soon
 * enough that a call's result is not held up, late enough not to spin on a server that is gone.
 */
const RETRY_MS = 1000;

/** JSON-RPC codes the transport answers with: MCP's "session not found", JSON-RPC's own. */
const CODE = {
  parseError: -32700,
  invalidRequest: -32600,
  serverError: -32000,
  sessionNotFound: -32001,
} as const;

/** One client's session: its transport and the tool server behind it. */
interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  tools: ToolServer;
}

/** What the endpoint needs of the SDK and the tool server, loaded with them on first use. */
interface Parts {
  createToolServer: typeof import("./server.ts").createToolServer;
  Transport: typeof import("./http_server_sdk.ts").WebStandardStreamableHTTPServerTransport;
  screenParams: typeof import("./screen_params.ts").screenParams;
  isMessage(value: unknown): boolean;
  invalidRequestMessage(value: unknown): string;
  batchVersions: readonly string[];
}

let partsOnce: Promise<Parts> | null = null;

/** The SDK takes about 200 ms to load: `replio serve` pays it on the first MCP request only. */
function loadParts(): Promise<Parts> {
  return partsOnce ??= Promise.all([
    import("./server.ts"),
    import("./http_server_sdk.ts"),
    import("./screen_params.ts"),
    import("./server_line_transport.ts"),
    import("./_sdk.ts"),
  ]).then(([server, http, screen, lines, sdk]) => ({
    createToolServer: server.createToolServer,
    Transport: http.WebStandardStreamableHTTPServerTransport,
    screenParams: screen.screenParams,
    isMessage: (value) => sdk.JSONRPCMessageSchema.safeParse(value).success,
    invalidRequestMessage: lines.invalidRequestMessage,
    batchVersions: lines.BATCH_VERSIONS,
  }));
}

/** An endpoint serving `options`' tools; the SDK loads on the first request. */
export function createMcpHttpEndpoint(options: McpHttpOptions): McpHttpEndpoint {
  return new McpSessions(options);
}

/** The sessions of one endpoint, least recently used first. */
class McpSessions implements McpHttpEndpoint {
  readonly #options: McpHttpOptions;
  readonly #sessions = new Map<string, Session>();
  #isClosing = false;

  constructor(options: McpHttpOptions) {
    this.#options = options;
  }

  async answer(request: Request): Promise<Response> {
    const response = await this.#answer(request);
    // The SDK sends `Connection: keep-alive` with its streams; whether the connection stays
    // open is the listener's and the client's to say (a client asking to close is obeyed).
    response.headers.delete("connection");
    return response;
  }

  async #answer(request: Request): Promise<Response> {
    if (this.#isClosing) {
      return rpcError(
        503,
        CODE.serverError,
        "Cannot answer: replio is shutting down: start it again and send initialize",
      );
    }
    const parts = await loadParts();
    const id = request.headers.get("mcp-session-id");
    if (id === null) return await this.#open(request, parts);
    const session = this.#sessions.get(id);
    if (!session) {
      return rpcError(
        404,
        CODE.sessionNotFound,
        `Session not found: "${id}" has ended or never existed: send initialize again, ` +
          `without an Mcp-Session-Id header, to start a new session`,
      );
    }
    // Used last, ended last: Map keeps insertion order.
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    if (request.method === "DELETE") {
      const response = await session.transport.handleRequest(request);
      // The session's calls were cancelled with it: answer once their processes are gone.
      await session.tools.settled();
      return response;
    }
    if (request.method !== "POST") return await session.transport.handleRequest(request);
    const body = await readMessages(request, this.#options.maxBodyBytes, parts);
    if (body instanceof Response) return body;
    if (Array.isArray(body)) {
      // Without the header MCP says to assume 2025-03-26, the version that had batches.
      const version = request.headers.get("mcp-protocol-version") ?? "2025-03-26";
      if (!parts.batchVersions.includes(version)) {
        return rpcError(
          400,
          CODE.invalidRequest,
          `Invalid Request: protocol version ${version} has no batches: send each message ` +
            `in a request of its own`,
        );
      }
    }
    return await session.transport.handleRequest(request, { parsedBody: body });
  }

  async close(): Promise<void> {
    this.#isClosing = true;
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map(endSession));
  }

  /** A POST without a session: it must be `initialize`, which starts one. */
  async #open(request: Request, parts: Parts): Promise<Response> {
    if (request.method !== "POST") {
      return rpcError(
        400,
        CODE.serverError,
        `Cannot ${request.method} without an Mcp-Session-Id header: POST initialize first ` +
          `and send the Mcp-Session-Id it answers with on every later request`,
      );
    }
    const body = await readMessages(request, this.#options.maxBodyBytes, parts);
    if (body instanceof Response) return body;
    if (Array.isArray(body) || !("method" in body) || body.method !== "initialize") {
      return rpcError(
        400,
        CODE.invalidRequest,
        "Invalid Request: no session yet: send initialize alone first, without an " +
          "Mcp-Session-Id header, then send that header with the id it answers with",
      );
    }
    const { createToolServer, Transport, screenParams } = parts;
    // Refused before a session exists, so a bad initialize leaves none behind.
    const refusal = screenParams(body);
    if (refusal) return rpcError(400, refusal.code, refusal.message, "id" in body ? body.id : null);
    const tools = createToolServer(this.#options);
    const transport = new Transport({
      sessionIdGenerator: () => crypto.randomUUID(),
      // A client that lost a stream resumes it with Last-Event-ID (MCP 2025-11-25 clients).
      eventStore: new SessionEvents(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => void this.#keep(id, { transport, tools }),
    });
    tools.server.onclose = () => {
      if (transport.sessionId !== undefined) this.#sessions.delete(transport.sessionId);
    };
    await tools.server.connect(transport);
    // As on stdio: bad params of the SDK's methods get -32602 naming the field, not its dump.
    const deliver = transport.onmessage!;
    transport.onmessage = (message, extra) => {
      const refused = screenParams(message);
      if (refused && "id" in message) {
        void transport.send({ jsonrpc: "2.0", id: message.id, error: refused });
      } else {
        deliver(message, extra);
      }
    };
    return await transport.handleRequest(request, { parsedBody: body });
  }

  /** Keeps a new session, ending the least recently used idle one past {@link MAX_SESSIONS}. */
  #keep(id: string, session: Session): void {
    this.#sessions.set(id, session);
    if (this.#sessions.size <= MAX_SESSIONS) return;
    for (const [oldId, old] of this.#sessions) {
      if (old.tools.isBusy()) continue;
      this.#sessions.delete(oldId);
      void endSession(old);
      return;
    }
  }
}

/** Closes a session's transport (aborting its calls) and waits until its calls have ended. */
async function endSession(session: Session): Promise<void> {
  await session.transport.close();
  await session.tools.settled();
}

/**
 * The body as one JSON-RPC message or a batch of them, or the error response it earns: 413 past
 * `maxBytes` (by `Content-Length` before anything is read), 400 for JSON that is not JSON-RPC.
 */
async function readMessages(
  request: Request,
  maxBytes: number,
  parts: Parts,
): Promise<JSONRPCMessage | JSONRPCMessage[] | Response> {
  const tooLarge = () =>
    rpcError(
      413,
      CODE.invalidRequest,
      `Cannot read the request body: it is over the limit of ${maxBytes} bytes: ` +
        `send a smaller message`,
    );
  if (Number(request.headers.get("content-length") ?? "0") > maxBytes) return tooLarge();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  const reader = request.body?.getReader();
  while (reader) {
    const read = await reader.read();
    if (read.done) break;
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return tooLarge();
    }
    text += decoder.decode(read.value, { stream: true });
  }
  text += decoder.decode();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return rpcError(
      400,
      CODE.parseError,
      `Parse error: ${error.message}: send one JSON-RPC 2.0 message as the body`,
    );
  }
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) {
    return rpcError(
      400,
      CODE.invalidRequest,
      "Invalid Request: the batch is empty: send at least one message in it",
    );
  }
  for (const item of items) {
    if (parts.isMessage(item)) continue;
    const id = (item as { id?: unknown } | null)?.id;
    const usable = typeof id === "string" || typeof id === "number" ? id : null;
    return rpcError(400, CODE.invalidRequest, parts.invalidRequestMessage(item), usable);
  }
  return value as JSONRPCMessage | JSONRPCMessage[];
}

/**
 * A JSON-RPC error answered with HTTP `status`. An id that could not be read is left out, as on
 * stdio: MCP's schema has no null id.
 */
function rpcError(
  status: number,
  code: number,
  message: string,
  id: string | number | null = null,
): Response {
  const body = { jsonrpc: "2.0", ...(id === null ? {} : { id }), error: { code, message } };
  return new Response(JSON.stringify(body) + "\n", {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
