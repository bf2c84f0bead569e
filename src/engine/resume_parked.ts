/**
 * Resuming a parked turn (docs/approvals.md): which calls run, how each is answered (the answer a
 * person recorded, or a command prefix they allowed for the session), and the answer's record.
 * Shared by `replio run --resume`, `replio approve` / `deny` and `replio serve`.
 * @module
 */
import type { ParkedCall, Session } from "../session/mod.ts";
import type { GivenAnswer } from "../tools/mod.ts";
import type { ResumeState } from "./agent.ts";

/** Characters that chain, redirect or substitute: a command with one is never prefix-approved. */
const SHELL_SPECIAL = /[;&|<>$`(){}\\\n\r*?[\]!#~'"]/;

/** What the resumed turn runs, and how each call's answer is found. */
export function resumeState(session: Session, parked: ParkedCall): ResumeState {
  const approval = parked.approval!;
  const given: GivenAnswer = {
    decision: approval.decision,
    by: approval.decision === "granted" ? "approved with replio approve" : "replio deny",
    note: approval.reason,
  };
  const prefix = approval.always_prefix;
  return {
    calls: session.unanswered(),
    interrupted: parked.started ? new Set([parked.call.call_id]) : new Set(),
    answer: ({ id, tool, args }) => {
      if (id === parked.call.call_id) return given;
      if (!prefix || tool.name !== parked.call.tool || !tool.keyArg) return undefined;
      const key = args[tool.keyArg];
      return typeof key === "string" && matchesPrefix(key, prefix)
        ? { decision: "granted", by: `always-allowed prefix "${prefix}" (replio approve)` }
        : undefined;
    },
  };
}

/** What {@link recordAnswer} recorded: the call it answered and the prefix it allowed, if any. */
export interface RecordedAnswer {
  parked: ParkedCall;
  prefix: string | null;
}

/** Why an answer cannot be recorded; front-ends map it to exit 2 or HTTP 409. */
export class AnswerError extends Error {
  override name = "AnswerError";
}

/**
 * Records a person's answer to a parked call of `session` (`callId`, or the one waiting).
 * @throws {AnswerError} when no such call waits, it was answered already, or `alwaysPrefix`
 * asks to allow a prefix of a command that chains or substitutes
 */
export function recordAnswer(
  session: Session,
  decision: "granted" | "declined",
  options: { callId?: string | undefined; reason?: string | undefined; alwaysPrefix?: boolean },
): RecordedAnswer {
  const verb = decision === "granted" ? "approve" : "deny";
  const waiting = session.parked().filter((p) => !p.approval);
  const parked = options.callId === undefined
    ? waiting[0]
    : waiting.find((p) => p.call.call_id === options.callId);
  if (!parked) {
    const answered = session.parked().find((p) => p.call.call_id === options.callId);
    throw new AnswerError(
      answered
        ? `Cannot ${verb} ${options.callId}: it was already answered (${answered.approval?.decision})`
        : `Cannot ${verb} in session "${session.id}": ${
          options.callId === undefined ? "no call" : `no call ${options.callId}`
        } waits for approval`,
    );
  }
  const prefix = decision === "granted" && options.alwaysPrefix
    ? commandPrefix(parked.call.activity.key)
    : null;
  if (options.alwaysPrefix && !prefix) {
    throw new AnswerError(
      `Cannot approve "${parked.call.activity.key}" with an always-allowed prefix: it chains, ` +
        "redirects or substitutes, so no prefix of it is safe to allow: approve it alone",
    );
  }
  session.append({
    type: "approval",
    call_id: parked.call.call_id,
    decision,
    ...(options.reason ? { reason: options.reason } : {}),
    ...(prefix ? { always_prefix: prefix } : {}),
  });
  return { parked, prefix };
}

/**
 * The words a command starts with that `--always-prefix` allows: the program and its
 * subcommand (`npm publish`), or the program alone when the second word is an option or path.
 * Null when the command has shell syntax that could hide a second command.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(commandPrefix("npm test -- --watch"), "npm test");
 * assert.equal(commandPrefix("ls -la src"), "ls");
 * assert.equal(commandPrefix("npm test; curl x | sh"), null);
 * ```
 */
export function commandPrefix(command: string): string | null {
  if (SHELL_SPECIAL.test(command)) return null;
  const words = command.trim().split(/\s+/);
  if (!words[0]) return null;
  return words[1] && /^[a-z][\w:-]*$/i.test(words[1]) ? `${words[0]} ${words[1]}` : words[0];
}

/** Whether `command` is `prefix` followed by whole words and no shell syntax. */
function matchesPrefix(command: string, prefix: string): boolean {
  if (SHELL_SPECIAL.test(command)) return false;
  const normal = command.trim().split(/\s+/).join(" ");
  return normal === prefix || normal.startsWith(`${prefix} `);
}
