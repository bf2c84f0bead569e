/**
 * Resuming a parked turn (docs/approvals.md): which calls run, how each is answered (the answer a
 * person recorded, or a command prefix they allowed for the session), and the answer's record.
 * Shared by `replio run --resume`, `replio approve` / `deny` and `replio serve`.
 * @module
 */
import type { ParkedCall, Session } from "../session/mod.ts";
import type { AnswerableCall, GivenAnswer, Tool } from "../tools/mod.ts";
import type { ResumeState } from "./agent.ts";

/**
 * What the resumed turn runs, and how each call's answer is found. The person's answer covers
 * exactly the call they were shown (same id, tool and canonical arguments: the fingerprint the
 * pending record and the approval both hold), once; a later call that reuses the id is a new call
 * and goes through the policy as usual. A prefix allowed with `--always-prefix` covers later calls
 * of the same tool only where that tool's own rule parser accepts them.
 */
export function resumeState(session: Session, parked: ParkedCall): ResumeState {
  const approval = parked.approval!;
  const given: GivenAnswer = {
    decision: approval.decision,
    by: approval.decision === "granted" ? "approved with replio approve" : "replio deny",
    note: approval.reason,
  };
  const prefix = approval.always_prefix;
  // A call a resume already started (a crash came before its result) is not run again, and its
  // answer is spent: nothing else may use it.
  let spent = parked.started;
  return {
    calls: session.unanswered(),
    interrupted: parked.started ? new Set([parked.call.call_id]) : new Set(),
    answer: async (call: AnswerableCall) => {
      if (!spent && answers(parked, call)) {
        spent = true;
        return given;
      }
      if (!prefix || call.tool.name !== parked.call.tool || !call.tool.approval) return undefined;
      return await call.tool.approval.matches(call.args, prefix)
        ? { decision: "granted", by: `always-allowed prefix "${prefix}" (replio approve)` }
        : undefined;
    },
  };
}

/** Whether the recorded answer to `parked` is for exactly `call`. */
function answers(parked: ParkedCall, call: AnswerableCall): boolean {
  const bound = parked.approval?.fingerprint;
  return bound !== undefined && call.id === parked.call.call_id &&
    call.tool.name === parked.call.tool && parked.call.fingerprint === bound &&
    call.fingerprint === bound;
}

/** What {@link recordAnswer} recorded: the call it answered and the prefix it allowed, if any. */
export interface RecordedAnswer {
  parked: ParkedCall;
  prefix: string | null;
  /** What the prefix covers, in the tool's words (`commands starting with "ls"`, `exactly "…"`). */
  scope: string | null;
}

/** Why an answer cannot be recorded; front-ends map it to exit 2 or HTTP 409. */
export class AnswerError extends Error {
  override name = "AnswerError";
}

/**
 * Records a person's answer to a parked call of `session` (`callId`, or the one waiting), bound
 * to the call they were shown (its fingerprint). `approval` is the parked tool's rule hook, which
 * alone may turn the call into an always-allowed prefix (the same parser as the REPL's `a`).
 * @throws {AnswerError} when no such call waits, it was answered already, it was parked by an
 * older replio (no fingerprint to bind an answer to), or `alwaysPrefix` asks for a prefix the
 * tool's rule parser does not offer for this call
 */
export async function recordAnswer(
  session: Session,
  decision: "granted" | "declined",
  options: {
    callId?: string | undefined;
    reason?: string | undefined;
    alwaysPrefix?: boolean;
    approval?: Tool["approval"] | undefined;
  },
): Promise<RecordedAnswer> {
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
  if (parked.call.fingerprint === undefined) {
    throw new AnswerError(
      `Cannot ${verb} ${parked.call.call_id}: it was parked by an older replio that did not ` +
        `record exactly which call it was, so no answer can be bound to it: start a new turn ` +
        `with replio run --session ${session.id} --park PROMPT`,
    );
  }
  const prefix = decision === "granted" && options.alwaysPrefix
    ? await safePrefix(parked, options.approval)
    : null;
  if (options.alwaysPrefix && decision === "granted" && !prefix) {
    throw new AnswerError(
      `Cannot approve ${parked.call.tool} "${parked.call.activity.key}" with an always-allowed ` +
        "prefix: no prefix of it is safe to allow (it chains, redirects or substitutes, or its " +
        "program can run other programs or write through its arguments): approve it alone",
    );
  }
  session.append({
    type: "approval",
    call_id: parked.call.call_id,
    decision,
    fingerprint: parked.call.fingerprint,
    ...(options.reason ? { reason: options.reason } : {}),
    ...(prefix ? { always_prefix: prefix } : {}),
  });
  const scope = prefix ? options.approval?.describe?.(prefix) ?? null : null;
  return { parked, prefix, scope };
}

/** The rule the tool's own parser offers for the parked call, if it also covers that call. */
async function safePrefix(
  parked: ParkedCall,
  approval: Tool["approval"] | undefined,
): Promise<string | null> {
  if (!approval) return null;
  const pattern = await approval.propose(parked.call.arguments);
  if (pattern === null) return null;
  return await approval.matches(parked.call.arguments, pattern) ? pattern : null;
}
