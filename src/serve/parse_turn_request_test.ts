import assert from "node:assert/strict";
import { HttpError } from "./http_error.ts";
import { parseTurnRequest } from "./parse_turn_request.ts";

function problem(body: Record<string, unknown>): string {
  try {
    parseTurnRequest(body);
  } catch (error) {
    assert.ok(error instanceof HttpError);
    assert.equal(error.status, 400);
    return error.message;
  }
  return assert.fail("expected a 400");
}

Deno.test("parseTurnRequest keeps prompt, session and mode", () => {
  assert.deepEqual(
    parseTurnRequest({ prompt: "fix it", session: "ses_a", mode: "plan" }),
    { prompt: "fix it", session: "ses_a", mode: "plan" },
  );
});

Deno.test("parseTurnRequest names the first bad field", () => {
  const shape = `send {"prompt": "…", "session": "…", "mode": "…"} (session and mode optional)`;
  assert.equal(
    problem({}),
    `Cannot start a turn: "prompt" must be a non-empty string, got undefined: ${shape}`,
  );
  assert.equal(
    problem({ prompt: "hi", sesion: "x" }),
    `Cannot start a turn: unknown field "sesion": ${shape}`,
  );
  assert.equal(
    problem({ prompt: "hi", session: "../etc" }),
    `Cannot start a turn: "session" must be a session id (letters, digits, "_", "." and "-"), got "../etc": GET /v1/sessions lists the ids`,
  );
  assert.equal(
    problem({ prompt: "hi", mode: 3 }),
    `Cannot start a turn: "mode" must be a mode name, got 3: ${shape}`,
  );
});
