/**
 * A finished turn as OpenAI's API would answer: the `chat.completion` body, its finish reason,
 * and the error a failed turn is instead of an answer.
 * @module
 */
import type { TurnResult } from "../engine/mod.ts";
import type { ChatRequest } from "./chat_request.ts";
import { HttpError } from "./http_error.ts";

/** The `replio` extension field: what the turn did besides answering. */
export function turnExtension(result: TurnResult) {
  return {
    session: result.session,
    status: result.status,
    tool_calls: result.tool_calls,
    permissions: result.permissions,
    errors: result.errors,
    rounds: result.rounds,
  };
}

/** `stop`, or `length` when the turn was cut short by the model's limit or `max_rounds`. */
export function finishReason(result: TurnResult): "stop" | "length" {
  return result.status === "truncated" || result.status === "max_rounds" ? "length" : "stop";
}

/**
 * The error a turn that gave no answer is, or null for one that answered. An OpenAI client takes
 * any completion as an answer, so a failed turn (the model unreachable) is a 502 and a turn the
 * server's shutdown cut off a 503, never an empty or partial `stop`.
 */
export function turnFailure(result: TurnResult): HttpError | null {
  const see = `see session "${result.session}" (GET /v1/sessions/${result.session})`;
  if (result.status === "error") {
    return new HttpError(
      502,
      "turn_failed",
      `Cannot answer: the turn failed: ${result.errors.map((e) => e.message).join("; ")}: ${see}`,
    );
  }
  if (result.status === "cancelled") {
    return new HttpError(
      503,
      "shutting_down",
      `Cannot finish the answer: the server is shutting down and cancelled the turn, which is ` +
        `saved: start the server again and send the request again, or ${see}`,
    );
  }
  return null;
}

/** The `chat.completion` body for a finished turn whose answer is `content`. */
export function completionBody(
  request: ChatRequest,
  head: { id: string; created: number; content: string },
  result: TurnResult,
) {
  return {
    id: head.id,
    object: "chat.completion",
    created: head.created,
    model: request.model,
    choices: [{
      index: 0,
      message: { role: "assistant", content: head.content },
      finish_reason: finishReason(result),
      logprobs: null,
    }],
    usage: result.usage,
    replio: turnExtension(result),
  };
}
