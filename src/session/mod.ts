/**
 * The JSONL session store (docs/session.md): `.replio/sessions/<id>.jsonl`, append-only, one
 * record per line. The engine opens a session, appends as the turn runs, and resumes from
 * `history()`; `replio sessions` lists, loads and renders them.
 *
 * ```ts ignore
 * using session = await openSession(worktree, { config, id: flags.session, model });
 * const messages = session.history(); // resumed history, or [] for a new session
 * session.beginTurn(prompt);
 * session.appendMessage({ role: "user", content: prompt });
 * session.appendPermission(record); // from invokeTool's audit callback
 * session.endTurn("ok", usage);
 * ```
 * @module
 */
export { type ChangedFile, Checkpoints, type RestoredFile } from "./checkpoints.ts";
export { type LoadedSession, loadSession, type ScanReport } from "./load_session.ts";
export {
  listSessionHeads,
  listSessions,
  type SessionHead,
  type SessionSummary,
} from "./list_sessions.ts";
export { type LastUsed, readLastUsed, recordLastUsed } from "./last_used.ts";
export { closestSessions } from "./closest_sessions.ts";
export { INTERRUPTED_RESULT, type PairedHistory, pairToolResults } from "./pair_tool_results.ts";
export type {
  NewRecord,
  PendingCall,
  RecordType,
  SessionHeader,
  SessionRecord,
} from "./records.ts";
export { readRecordedCalls, type RecordedCall } from "./recorded_calls.ts";
export { type ReadItem, readRecords } from "./read_records.ts";
export { renderTranscript } from "./render_transcript.ts";
export {
  openSession,
  type OpenSessionOptions,
  Session,
  SESSION_FORMAT_VERSION,
} from "./session.ts";
export {
  isSessionId,
  newSessionId,
  newSubagentId,
  sessionExists,
  sessionFile,
  sessionOutputsDir,
  sessionsDir,
  validateSessionId,
} from "./session_id.ts";
export { collectOutputs, type OutputsGcReport, sessionOutputStore } from "./outputs.ts";
export { type ParkedCall, SUMMARY_PREFIX, summaryMessage } from "./session_state.ts";
