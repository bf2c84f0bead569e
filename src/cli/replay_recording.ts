/**
 * What a session file holds for `replio replay`, and the answers it may give. A recorded answer
 * stands only for the exact call it was given for: the same turn, call id, tool and canonical
 * arguments, used once. A recording never grants a protected-path write, and a recording replayed
 * in an untrusted folder grants nothing (a repository can ship `.replio/sessions/`).
 * @module
 */
import type { RecordedReply } from "../providers/replay.ts";
import { readRecords, type SessionHeader, type SessionRecord } from "../session/mod.ts";
import { canonicalJson, type GivenAnswer, type HeadlessAnswer } from "../tools/mod.ts";
import type { AnswerableCall } from "../tools/invoke.ts";
import type { Decision } from "../ui/events.ts";

/** One recorded turn: its prompt, the model's replies in order, and how it was run. */
export interface RecordedTurn {
  prompt: string;
  replies: RecordedReply[];
  /** How a headless turn answered ask-gated calls (`--yes`, denied, or `--park`). */
  headless: HeadlessAnswer | undefined;
}

/** A parked call's answer as the session records it. */
export type ApprovalRecord = Extract<SessionRecord, { type: "approval" }>;

/** A decision the recording holds for one call, with what identifies that call. */
export interface RecordedDecision {
  /** Index of the turn (0-based) the call was made in. */
  turn: number;
  callId: string;
  /** The name the model called it by, as the recorded reply has it. */
  name: string;
  /** The tool the policy judged (the audit's name: an alias resolved). */
  tool: string;
  /** The model's arguments, canonical JSON. */
  args: string;
  decision: Decision;
}

/** What a session file holds for a replay. */
export interface Recording {
  header: SessionHeader;
  turns: RecordedTurn[];
  /** Tool results by call id. */
  results: Map<string, { name: string; content: string }>;
  /** How each call the policy asked about was answered (by a person or `--yes`), in file order. */
  decisions: RecordedDecision[];
  /** What `replio approve` / `replio deny` recorded for parked calls, by call id. */
  approvals: Map<string, ApprovalRecord>;
}

/** Reads the header, the turns with their replies, and each call's result and decision. */
export async function readRecording(file: string): Promise<Recording> {
  let header: SessionHeader | null = null;
  const turns: RecordedTurn[] = [];
  const results = new Map<string, { name: string; content: string }>();
  const approvals = new Map<string, ApprovalRecord>();
  const decisions: RecordedDecision[] = [];
  // The calls of the current turn's replies, by id: what a permission record was about.
  let calls = new Map<string, { name: string; args: string }>();
  for await (const item of readRecords(file)) {
    if (item.kind !== "record") continue;
    const record: SessionRecord = item.record;
    if (record.type === "session") {
      const { type: _type, ts: _ts, ...rest } = record;
      header = rest;
    } else if (record.type === "turn_start") {
      turns.push({ prompt: record.prompt, replies: [], headless: undefined });
      calls = new Map();
    } else if (record.type === "permission") {
      // (Sessions from before audit records named their call give none: a replay then grants
      // no ask, never more than the recording did.)
      const call = record.call_id ? calls.get(record.call_id) : undefined;
      if (record.call_id && call && turns.length && record.action === "ask") {
        decisions.push({
          turn: turns.length - 1,
          callId: record.call_id,
          ...call,
          tool: record.tool,
          decision: record.decision,
        });
      }
      // The invoke pipeline notes how a headless run answered ("…; headless --yes").
      const turn = turns.at(-1);
      const answer = /; (headless --yes|headless|parked for approval)$/.exec(record.reason)?.[1];
      if (turn && answer) {
        turn.headless = answer === "headless --yes" ? "yes" : answer === "headless" ? "no" : "park";
      }
    } else if (record.type === "approval") {
      approvals.set(record.call_id, record);
    } else if (record.type === "message") {
      const message = record.message;
      if (message.role === "assistant") {
        turns.at(-1)?.replies.push(message);
        for (const call of message.tool_calls ?? []) {
          calls.set(call.id, {
            name: call.function.name,
            args: canonicalArgs(call.function.arguments),
          });
        }
      }
      if (message.role === "tool") {
        results.set(message.tool_call_id, { name: message.name, content: message.content });
      }
    }
  }
  if (!header) {
    throw new Deno.errors.InvalidData(
      `Cannot replay ${file}: it has no session header: is it a replio session file?`,
    );
  }
  return { header, turns, results, decisions, approvals };
}

/** Arguments as canonical JSON, whether the model sent an object or JSON text. */
export function canonicalArgs(raw: unknown): string {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      return canonicalJson(raw);
    }
  }
  return canonicalJson(value ?? {});
}

/** The call a confirmation is about, as the replay's sink saw it announced. */
export interface ConfirmedCall {
  turn: number;
  callId: string;
  name: string;
  /** The tool the policy judged now. */
  tool: string;
  args: unknown;
  protectedPath?: string | undefined;
}

/**
 * The recording's answers, each spent on first use. `trusted` false (an untrusted folder) means
 * it grants nothing: every ask is declined.
 */
export class RecordedAnswers {
  readonly #unused: RecordedDecision[];
  readonly #approvals: Map<string, ApprovalRecord>;
  readonly #spent = new Set<string>();
  readonly trusted: boolean;

  constructor(recording: Recording, trusted: boolean) {
    this.#unused = trusted ? [...recording.decisions] : [];
    this.#approvals = trusted ? recording.approvals : new Map();
    this.trusted = trusted;
  }

  /** Whether the person (or `--yes`) granted exactly this call when it was recorded. */
  granted(call: ConfirmedCall): boolean {
    // Only a person at the prompt, told what they were shown, may write .git/config and such.
    if (call.protectedPath !== undefined) return false;
    const args = canonicalArgs(call.args);
    const index = this.#unused.findIndex((d) =>
      d.turn === call.turn && d.callId === call.callId && d.name === call.name &&
      d.tool === call.tool && d.args === args
    );
    if (index < 0) return false;
    const [found] = this.#unused.splice(index, 1);
    return found!.decision === "granted";
  }

  /** The answer `replio approve` / `deny` recorded for exactly this parked call, once. */
  approval(call: AnswerableCall): GivenAnswer | undefined {
    const approval = this.#approvals.get(call.id);
    if (!approval || this.#spent.has(call.id)) return undefined;
    if (approval.fingerprint === undefined || approval.fingerprint !== call.fingerprint) {
      return undefined;
    }
    if (call.protectedPath !== undefined && approval.decision === "granted") return undefined;
    this.#spent.add(call.id);
    return {
      decision: approval.decision,
      by: approval.decision === "granted" ? "approved with replio approve" : "replio deny",
      note: approval.reason,
    };
  }

  /** The approval records to copy into a re-recorded log, for the calls a resume runs. */
  approvalRecord(callId: string): ApprovalRecord | undefined {
    return this.#approvals.get(callId);
  }
}
