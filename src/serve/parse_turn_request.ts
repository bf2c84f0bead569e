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
  /** Stop at the first ask-gated call and wait for an answer (docs/approvals.md). */
  park?: boolean;
  /** Continue `session`'s parked turn after its call was answered; no prompt. */
  resume?: boolean;
}

const FIELDS = ["prompt", "session", "mode", "park", "resume"];
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
  const { prompt, session, mode, park, resume } = body;
  for (const [name, value] of [["park", park], ["resume", resume]] as const) {
    if (value !== undefined && value !== null && typeof value !== "boolean") {
      throw badTurn(`"${name}" must be true or false, got ${JSON.stringify(value)}: ${SHAPE}`);
    }
  }
  if (resume === true) {
    if (typeof session !== "string" || !isSessionId(session)) {
      throw badTurn(`"resume" continues a session's parked turn: give its id in "session"`);
    }
    if (prompt !== undefined && prompt !== null) {
      throw badTurn(`"resume" takes no prompt: the parked turn goes on where it stopped`);
    }
    return { prompt: "", session, resume: true, ...(typeof mode === "string" ? { mode } : {}) };
  }
  if (typeof prompt !== "string" || !prompt.trim()) {
    throw badTurn(`"prompt" must be a non-empty string, got ${JSON.stringify(prompt)}: ${SHAPE}`);
  }
  const request: TurnRequest = { prompt, ...(park === true ? { park: true } : {}) };
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
