/**
 * The tool calls a session file records, each with the permission decision it got: what
 * `replio policy test` re-resolves. A call's audit record is the first `permission` record after
 * the assistant message that asked for it and before its tool result (the invoke pipeline writes
 * them in that order); a call that never reached the policy (bad arguments, unknown tool) has none.
 * @module
 */
import type { PermissionRecord } from "../tools/audit.ts";
import { readRecords } from "./read_records.ts";

/** One tool call as recorded, with its audit record when it reached the policy. */
export interface RecordedCall {
  /** The session file's id (its file name without `.jsonl`). */
  session: string;
  /** The turn the call was made in (0 before any `turn_start`). */
  turn: number;
  id: string;
  /** The name the model used (an alias stays an alias). */
  name: string;
  /** The arguments as the model sent them: an object, or the raw text when it was not JSON. */
  arguments: unknown;
  permission: PermissionRecord | null;
}

/**
 * Reads every recorded tool call of one session file, in order.
 * @example
 * ```ts ignore
 * for await (const call of readRecordedCalls(".replio/sessions/ses_x.jsonl")) {
 *   console.log(call.name, call.permission?.action);
 * }
 * ```
 */
export async function* readRecordedCalls(path: string): AsyncGenerator<RecordedCall> {
  const session = path.replace(/^.*[/\\]/, "").replace(/\.jsonl$/, "");
  let turn = 0;
  // Calls of the last assistant message still waiting for their result, oldest first.
  let pending: RecordedCall[] = [];
  for await (const item of readRecords(path)) {
    if (item.kind !== "record") continue;
    const record = item.record;
    if (record.type === "turn_start") {
      yield* pending;
      pending = [];
      turn = record.turn;
    } else if (record.type === "permission") {
      // Calls run one at a time and a finished call leaves the queue at its result, so the
      // decision being recorded is the oldest waiting call's (its name may be an alias).
      const call = pending[0];
      if (call && call.permission === null) {
        const { type: _type, ...audit } = record;
        call.permission = audit;
      }
    } else if (record.type === "message") {
      const message = record.message;
      if (message.role === "assistant") {
        yield* pending;
        pending = (message.tool_calls ?? []).map((call) => ({
          session,
          turn,
          id: call.id,
          name: call.function.name,
          arguments: parseArguments(call.function.arguments),
          permission: null,
        }));
      } else if (message.role === "tool") {
        const at = pending.findIndex((c) => c.id === message.tool_call_id);
        if (at >= 0) {
          // Results come in call order; anything before this one is finished too.
          yield* pending.slice(0, at + 1);
          pending = pending.slice(at + 1);
        }
      }
    }
  }
  yield* pending;
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
