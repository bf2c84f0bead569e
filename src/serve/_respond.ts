/**
 * JSON in and out for the HTTP API: response builders and the request-body parser.
 * @module
 */
import { HttpError } from "./http_error.ts";

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/** A JSON response with `status`. */
export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(JSON.stringify(body) + "\n", {
    status,
    headers: { ...JSON_HEADERS, ...headers },
  });
}

/** The `error` object of a response or a stream's error event, in OpenAI's shape. */
export interface ErrorBody {
  message: string;
  type: string;
  param: string | null;
  code: string;
}

/**
 * `{message, type, param, code}` for a thrown error: an HttpError's own, else a 500's.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(errorBody(new Error("disk full")), {
 *   message: "disk full",
 *   type: "server_error",
 *   param: null,
 *   code: "internal",
 * });
 * ```
 */
export function errorBody(error: unknown): ErrorBody {
  if (error instanceof HttpError) {
    return { message: error.message, type: error.type, param: error.param, code: error.code };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message, type: "server_error", param: null, code: "internal" };
}

/** `{error: {message, type, param, code}}` for a thrown error: an HttpError keeps its status. */
export function errorResponse(error: unknown): Response {
  const status = error instanceof HttpError ? error.status : 500;
  const headers = error instanceof HttpError ? error.headers : {};
  return jsonResponse({ error: errorBody(error) }, status, headers);
}

/**
 * The largest request body the API reads (docs/serve.md): far above any prompt or chat history,
 * far below what would exhaust the server's memory.
 */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

/**
 * The body as one JSON object; an empty body is `{}`. Throws HttpError 400 for anything else,
 * 413 for a body over `maxBytes` (checked while reading, so a huge body is never buffered).
 */
export async function readJsonObject(
  request: Request,
  maxBytes = MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const text = await readLimitedText(request, maxBytes);
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new HttpError(
      400,
      "bad_json",
      `Cannot parse the request body: ${error.message}: send one JSON object`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(
      400,
      "bad_request",
      `Cannot use ${JSON.stringify(value)} as the request body: send one JSON object`,
    );
  }
  return value as Record<string, unknown>;
}

async function readLimitedText(request: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new HttpError(
      413,
      "body_too_large",
      `Cannot read the request body: it is over the limit of ${maxBytes} bytes: ` +
        `send a smaller body (shorten the prompt or the history)`,
    );
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (request.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}
