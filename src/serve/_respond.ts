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

/** `{error: {code, message}}` for a thrown error: an HttpError keeps its status, else 500. */
export function errorResponse(error: unknown): Response {
  if (error instanceof HttpError) {
    return jsonResponse(
      { error: { code: error.code, message: error.message } },
      error.status,
      error.headers,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return jsonResponse({ error: { code: "internal", message } }, 500);
}

/** The body as one JSON object; an empty body is `{}`. Throws HttpError 400 otherwise. */
export async function readJsonObject(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text();
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
