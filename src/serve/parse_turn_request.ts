/**
 * The body of `POST /v1/turns`, checked field by field so a typo is a 400, not a silent default.
 * @module
 */
import { isSessionId } from "../session/mod.ts";
import { HttpError } from "./http_error.ts";

/** One turn as a client asks for it. */
export interface TurnRequest {
  prompt: string;
  /** Continue or create this session; a new session when absent. */
  session?: string;
  /** Mode for this turn; the server's mode when absent. */
  mode?: string;
}

const FIELDS = ["prompt", "session", "mode"];
const SHAPE = `send {"prompt": "…", "session": "…", "mode": "…"} (session and mode optional)`;

/**
 * The turn request in `body`; throws HttpError 400 naming the first bad field. `null` counts as
 * absent.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseTurnRequest({ prompt: "hi", session: null }), { prompt: "hi" });
 * ```
 */
export function parseTurnRequest(body: Record<string, unknown>): TurnRequest {
  const unknown = Object.keys(body).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined) throw badTurn(`unknown field "${unknown}": ${SHAPE}`);
  const { prompt, session, mode } = body;
  if (typeof prompt !== "string" || !prompt.trim()) {
    throw badTurn(`"prompt" must be a non-empty string, got ${JSON.stringify(prompt)}: ${SHAPE}`);
  }
  const request: TurnRequest = { prompt };
  if (session !== undefined && session !== null) {
    if (typeof session !== "string" || !isSessionId(session)) {
      throw badTurn(
        `"session" must be a session id (letters, digits, "_", "." and "-"), got ${
          JSON.stringify(session)
        }: GET /v1/sessions lists the ids`,
      );
    }
    request.session = session;
  }
  if (mode !== undefined && mode !== null) {
    if (typeof mode !== "string" || !mode) {
      throw badTurn(`"mode" must be a mode name, got ${JSON.stringify(mode)}: ${SHAPE}`);
    }
    request.mode = mode;
  }
  return request;
}

function badTurn(detail: string): HttpError {
  return new HttpError(400, "bad_request", `Cannot start a turn: ${detail}`);
}
