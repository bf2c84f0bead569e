/**
 * The session file format (docs/session.md): one JSON object per line, each with `type` and
 * `ts`. Types only.
 * @module
 */
import type { ChatMessage, Usage } from "../providers/types.ts";
import type { PermissionRecord } from "../tools/audit.ts";
import type { Activity, TurnStatus } from "../ui/events.ts";

/** The first line of every session file, without `type` and `ts`. */
export interface SessionHeader {
  id: string;
  /** The file format version; readers accept lines of a newer version they can parse. */
  version: number;
  /** Absolute worktree the session ran in. */
  worktree: string;
  /** ISO time the session was created. */
  created: string;
  model?: string;
  /** The session that delegated to this one (sub-agent sessions only). */
  parent?: string;
  /** The agent type a sub-agent session runs as. */
  agent_type?: string;
}

/** Every line of a session file: a discriminated union on `type`. */
export type SessionRecord =
  | { type: "session"; ts: string } & SessionHeader
  | { type: "turn_start"; ts: string; turn: number; prompt: string }
  | { type: "message"; ts: string; message: ChatMessage }
  | { type: "permission" } & PermissionRecord
  | { type: "error"; ts: string; code: string; message: string }
  | { type: "analysis"; ts: string; tool_call_id: string; text: string }
  | {
    type: "compaction";
    ts: string;
    summary: string;
    /** Index, counting every `message` record of the file from 0, of the last one replaced. */
    upto: number;
    /**
     * The last user message up to `upto` (the prompt of the turn being compacted from inside)
     * is kept, right after the summary. Absent (older files, whole turns folded): nothing is.
     */
    keeps_prompt?: boolean;
  }
  | { type: "subagent"; ts: string; session: string; agent_type: string; task: string }
  /** The model the turns after it use, when it changed since the header (the REPL's /model). */
  | { type: "model"; ts: string; model: string }
  | { type: "turn_end"; ts: string; status: TurnStatus; usage: Usage }
  | { type: "pending" } & PendingCall
  | {
    type: "approval";
    ts: string;
    call_id: string;
    decision: "granted" | "declined";
    /** Why it was declined, for the model. */
    reason?: string;
    /** Also allow later commands that start with this prefix, for the rest of the session. */
    always_prefix?: string;
    /**
     * The answered call's fingerprint (tool + canonical arguments) as the person was shown it:
     * the answer is used only for a call with this fingerprint, once. An approval without one
     * (an older file's) grants nothing: the call is judged again.
     */
    fingerprint?: string;
  };

/** A tool call a `--park` run stopped at, waiting for `replio approve` or `replio deny`. */
export interface PendingCall {
  ts: string;
  call_id: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** What the confirm prompt would have shown (front-ends format it, e.g. `$ Run npm publish`). */
  activity: Activity;
  /** Why it needs a person, e.g. `tool_permission.bash`. */
  reason: string;
  /** SHA-256 of the tool name and canonical cleaned arguments: what an answer is bound to. */
  fingerprint?: string;
}

/** The `type` names of session records. */
export type RecordType = SessionRecord["type"];

type WithOptionalTs<T> = T extends unknown ? Omit<T, "ts"> & { ts?: string } : never;

/** A record the caller appends: `ts` defaults to now; the header is written by the store. */
export type NewRecord = WithOptionalTs<Exclude<SessionRecord, { type: "session" }>>;
