/**
 * `replio serve` as a user runs it, for the serve tests: a child process on a free port against
 * the mock model server, and the ways of talking to it (JSON, server-sent events, raw HTTP,
 * the official openai SDK).
 * @module
 */
import OpenAI from "openai";
import { spawnListening } from "./listening_process.ts";
import { replioCommand } from "./replio_process.ts";

/** UTF-8 bytes as text. */
export const decode = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** A running `replio serve`; disposing it sends SIGTERM and waits for the exit. */
export interface Served extends AsyncDisposable {
  /** `http://127.0.0.1:PORT`, whatever host it bound. */
  base: string;
  /** The first stdout line. */
  listening: string;
  /** Sends `signal` once and resolves with the exit code and everything written. */
  stop(signal?: Deno.Signal): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Options of {@link serve}. */
export interface ServeOptions {
  args?: string[];
  env?: Record<string, string>;
}

/**
 * Starts `replio serve` in `cwd` against the model server at `model.baseUrl` (the mock model,
 * or a port that refuses) and waits for its `listening` line.
 */
export async function serve(
  cwd: string,
  model: { baseUrl: string },
  options: ServeOptions = {},
): Promise<Served> {
  const modelArgs = ["--base-url", model.baseUrl, "--model", "mock-model"];
  const args = ["serve", "--port", "0", ...modelArgs, ...options.args ?? []];
  const { firstLine: listening, stop } = await spawnListening(
    replioCommand(args, { cwd, env: options.env ?? {} }),
    "replio serve",
  );
  const match = /^listening http:\/\/(.+):(\d+)$/.exec(listening);
  if (!match) {
    const ended = await stop();
    throw new Error(`replio serve did not start: ${JSON.stringify(ended)}`);
  }
  return {
    base: `http://127.0.0.1:${match[2]}`,
    listening,
    stop,
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}

/** A response, its body parsed as JSON. */
export interface Answer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** `path` on the server, its JSON answer. */
export async function api(served: Served, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(served.base + path, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

/** POSTs `body` (JSON unless a string) to `path`. */
export function post(served: Served, path: string, body: unknown, init: RequestInit = {}) {
  return api(served, path, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** Sends `head` (request line and headers) with `Connection: close`; returns the whole reply. */
export async function rawRequest(served: Served, head: string): Promise<string> {
  const port = Number(new URL(served.base).port);
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(head + "Connection: close\r\n\r\n"));
  let reply = "";
  const buffer = new Uint8Array(4096);
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    reply += decode(buffer.subarray(0, n));
  }
  return reply;
}

/** One server-sent event, its data parsed. */
export interface ServerSentEvent {
  event: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** Reads server-sent events until the stream ends or `until` says stop (then stops reading). */
export async function readEvents(
  response: Response,
  until: (event: ServerSentEvent) => boolean = () => false,
): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    buffer += read.value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const data = JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null");
      events.push({ event, data });
      if (until(events.at(-1)!)) {
        reader.releaseLock();
        return events;
      }
    }
  }
  if (buffer !== "") throw new Error(`the stream ended inside an event: ${buffer}`);
  return events;
}

/** The official openai SDK pointed at a running `replio serve`. */
export function openaiClient(served: Served): OpenAI {
  return new OpenAI({ baseURL: served.base + "/v1", apiKey: "unused", maxRetries: 0 });
}
