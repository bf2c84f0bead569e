/**
 * `replio mcp --http` as a user runs it, for the MCP HTTP server tests: a child process on a free
 * port, the official SDK client (`StreamableHTTPClientTransport`) connected to it, and raw HTTP
 * for what a client library hides.
 * @module
 */
import assert from "node:assert/strict";
import { Client } from "../../src/mcp/_sdk.ts";
import { StreamableHTTPClientTransport } from "../../src/mcp/_sdk_http.ts";
import { spawnListening } from "./listening_process.ts";
import { replioCommand } from "./replio_process.ts";

/** A running `replio mcp --http`; disposing it sends SIGTERM and waits for the exit. */
export interface McpHttpReplio extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/mcp`, as its first stdout line names it. */
  url: string;
  /** Sends `signal` once and resolves with the exit code and everything written. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Starts `replio mcp --http --port 0 ...args` in `cwd` (its own global config folder) and waits
 * for its `listening` line; throws with what it printed when it does not start.
 */
export async function startMcpHttp(
  cwd: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<McpHttpReplio> {
  const { firstLine, stop } = await spawnListening(
    replioCommand(["mcp", "--http", "--port", "0", ...args], { cwd, env }),
    "replio mcp --http",
  );
  const match = /^listening (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(firstLine);
  if (!match) throw new Error(`replio mcp --http did not start: ${JSON.stringify(await stop())}`);
  return { url: match[1]!, stop, [Symbol.asyncDispose]: async () => void await stop() };
}

/** The SDK client connected to `url`, its transport as `http`; disposing it closes the client. */
export async function httpClient(
  url: string,
  headers: Record<string, string> = {},
): Promise<Client & AsyncDisposable & { http: StreamableHTTPClientTransport }> {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return Object.assign(client, {
    http: transport,
    [Symbol.asyncDispose]: () => client.close(),
  });
}

/** An initialize request as a client sends it first (protocol 2025-06-18). */
export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
};

/** An answer read off the wire: its status, and its JSON-RPC messages (SSE or plain JSON). */
export interface RawAnswer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  messages: any[];
  text: string;
}

/** POSTs `body` to `url` as an MCP client would, with `headers` on top. */
export async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return await readAnswer(response.status, response.headers, await response.text());
}

/** The status, headers and JSON-RPC messages of an answer read as text. */
function readAnswer(status: number, headers: Headers, text: string): RawAnswer {
  const isStream = (headers.get("content-type") ?? "").startsWith("text/event-stream");
  const messages = isStream
    ? [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!))
    : text.trim()
    ? [JSON.parse(text)]
    : [];
  return { status, headers, messages, text };
}

/** A session opened by raw initialize; returns its id. */
export async function rawSession(
  url: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const answer = await rawPost(url, INITIALIZE, headers);
  assert.equal(answer.status, 200, answer.text);
  const id = answer.headers.get("mcp-session-id");
  assert.ok(id, "initialize answers with a session id");
  await rawPost(url, { jsonrpc: "2.0", method: "notifications/initialized" }, {
    ...headers,
    "mcp-session-id": id,
  });
  return id;
}

/**
 * POSTs over a plain TCP connection, so the test can send any Host header (fetch sets its own).
 */
export async function rawHostPost(url: string, host: string, body: unknown, headers: string[]) {
  const { port } = new URL(url);
  using conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const payload = new TextEncoder().encode(JSON.stringify(body));
  const head = [
    `POST /mcp HTTP/1.1`,
    `Host: ${host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    "MCP-Protocol-Version: 2025-06-18",
    `Content-Length: ${payload.byteLength}`,
    "Connection: close",
    ...headers,
  ].join("\r\n") + "\r\n\r\n";
  await conn.write(new TextEncoder().encode(head));
  await conn.write(payload);
  let reply = "";
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    reply += new TextDecoder().decode(buffer.subarray(0, n));
  }
  return Number(/^HTTP\/1\.1 (\d+)/.exec(reply)?.[1]);
}

/** A tools/call of run_command as a raw JSON-RPC request. */
export function runCommand(command: string, id = 2) {
  return {
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name: "run_command", arguments: { command } },
  };
}
