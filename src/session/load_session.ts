/**
 * Reading a whole session: the header, every record, the model history and the audit arrays,
 * with a warning for each line that could not be used.
 * @module
 */
import type { ChatMessage } from "../providers/types.ts";
import type { PermissionRecord } from "../tools/audit.ts";
import { type DeferredMessage, readRecordBatches, type ResumeItem } from "./read_records.ts";
import type { SessionHeader, SessionRecord } from "./records.ts";
import { sessionFile } from "./session_id.ts";
import { SessionState } from "./session_state.ts";

/** What scanning a file reports besides its records. */
export interface ScanReport {
  /** The first `session` record; null when the file has none (its first line was cut). */
  header: SessionHeader | null;
  /** One sentence per skipped line, in file order. */
  warnings: string[];
  /** The last line was cut short (a writer was killed mid-line) and was skipped. */
  truncatedLine: boolean;
}

/** A session as `replio sessions show` and resume read it. */
export interface LoadedSession extends ScanReport {
  id: string;
  path: string;
  records: SessionRecord[];
  /** Every message record in file order, including those a compaction replaced. */
  messages: ChatMessage[];
  /** What the model continues from: compaction honoured, every tool call answered. */
  history: ChatMessage[];
  permissions: PermissionRecord[];
  errors: { code: string; message: string; ts: string }[];
}

/**
 * Streams every record of `path`, header included, to `onRecord`; the file is never held in
 * memory whole. With `onUnread`, message lines in the writer's shape go there unparsed.
 */
export async function scanSession(
  path: string,
  onRecord: (record: SessionRecord) => void,
  onUnread?: (message: DeferredMessage) => void,
): Promise<ScanReport> {
  const report: ScanReport = { header: null, warnings: [], truncatedLine: false };
  let first = true;
  const take = (item: ResumeItem) => {
    if (item.kind === "deferred") {
      onUnread!(item.message);
      first = false;
      return;
    }
    if (item.kind === "skipped") {
      if (item.reason === "unparsable" && item.last) {
        report.truncatedLine = true;
        report.warnings.push(
          `Skipped line ${item.line}: it was cut short (the process stopped while writing it)`,
        );
      } else {
        report.warnings.push(`Skipped line ${item.line}: ${item.problem}`);
      }
      first = false;
      return;
    }
    const { record } = item;
    if (record.type === "session" && report.header === null) {
      const { type: _type, ts: _ts, ...header } = record;
      report.header = header;
      if (!first) report.warnings.push(`The session header is on line ${item.line}, not line 1`);
    }
    onRecord(record);
    first = false;
  };
  const batches = onUnread
    ? readRecordBatches(path, { deferMessages: true })
    : readRecordBatches(path);
  for await (const batch of batches) {
    for (const item of batch) take(item);
  }
  return report;
}

/**
 * Loads session `id` of `worktree`; throws `Deno.errors.NotFound` when there is no such file
 * and a `RangeError` for an invalid id.
 */
export async function loadSession(worktree: string, id: string): Promise<LoadedSession> {
  const path = sessionFile(worktree, id);
  const state = new SessionState();
  const records: SessionRecord[] = [];
  const messages: ChatMessage[] = [];
  const permissions: PermissionRecord[] = [];
  const errors: LoadedSession["errors"] = [];
  const report = await scanSession(path, (record) => {
    state.apply(record);
    records.push(record);
    if (record.type === "message") messages.push(record.message);
    if (record.type === "permission") {
      const { type: _type, ...permission } = record;
      permissions.push(permission);
    }
    if (record.type === "error") {
      errors.push({ code: record.code, message: record.message, ts: record.ts });
    }
  });
  // The history a resume would send: a crashed turn closed as a resume closes it.
  const ts = new Date().toISOString();
  for (const repair of state.repairs()) state.apply({ ...repair, ts } as SessionRecord);
  return { id, path, ...report, records, messages, history: state.history(), permissions, errors };
}
