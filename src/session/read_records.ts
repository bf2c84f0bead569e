/**
 * Streams a session file line by line into records, reporting lines it cannot use instead of
 * failing: a crash can cut the last line, and a hand edit can break any line.
 * @module
 */
import { concatBytes } from "../fs/concat_bytes.ts";
import type { ChatMessage } from "../providers/types.ts";
import { describeWrongKind } from "../fs/wrong_kind.ts";
import type { RecordType, SessionRecord } from "./records.ts";

/** One line of a session file, read or skipped. */
export type ReadItem =
  | { kind: "record"; line: number; record: SessionRecord }
  | {
    kind: "skipped";
    line: number;
    /** Why: not JSON at all (`unparsable`), or JSON that is no record we know (`invalid`). */
    reason: "unparsable" | "invalid";
    problem: string;
    /** The line is the file's last one, where a killed writer leaves a partial line. */
    last: boolean;
  };

type FieldKind = "string" | "number" | "object";

/** The fields each record type must have (besides `type` and `ts`) to be used. */
const REQUIRED_FIELDS: Record<RecordType, Record<string, FieldKind>> = {
  session: { id: "string", worktree: "string", created: "string" },
  turn_start: { turn: "number", prompt: "string" },
  message: { message: "object" },
  permission: {
    tool: "string",
    permission: "string",
    action: "string",
    decision: "string",
    reason: "string",
  },
  error: { code: "string", message: "string" },
  analysis: { tool_call_id: "string", text: "string" },
  compaction: { summary: "string", upto: "number" },
  subagent: { session: "string", agent_type: "string", task: "string" },
  model: { model: "string" },
  turn_end: { status: "string", usage: "object" },
  pending: { call_id: "string", tool: "string", arguments: "object", activity: "object" },
  approval: { call_id: "string", decision: "string" },
};

/**
 * A message line kept as it is, unparsed: a resume needs of it only its role (and a tool
 * result's call id) unless it is still in the history when the file ends. Most of a long
 * session's lines are messages a later compaction replaced; parsing them all was half of what
 * resuming a 100 MB session cost (bench/scale_session_file.ts, issue 26).
 */
export interface DeferredMessage {
  line: number;
  role: ChatMessage["role"];
  /** A tool result's call id: a parked call it answers waits no more. */
  toolCallId: string | null;
  /** Where the line is in the file: it is read again only if needed, not copied. */
  offset: number;
  length: number;
}

/** A line as a reader that defers messages gets it. */
export type ResumeItem = ReadItem | { kind: "deferred"; message: DeferredMessage };

/**
 * The writer's shape of a message line (`type`, `ts`, then the message with `role` first, and a
 * tool result's `tool_call_id` next): only such lines are deferred, the rest are parsed at once.
 */
const MESSAGE_LINE =
  /^\{"type":"message","ts":"[^"\\]*","message":\{"role":"(user|assistant|system|tool)"(?:,"tool_call_id":"([^"\\]*)")?[,}]/;
/** Enough of a line to hold its type, time, role and call id. */
const MESSAGE_HEAD_BYTES = 512;
const CLOSING_BRACE = 0x7d;

/** Reads the records of one file in order; memory stays bounded by the longest line. */
export async function* readRecords(path: string): AsyncGenerator<ReadItem> {
  for await (const batch of readRecordBatches(path)) yield* batch;
}

/**
 * The records of one file, a read's worth at a time: a 100 MB session is a few hundred awaits
 * instead of one per line for every reader in the chain (resume's hot path). With
 * `deferMessages`, message lines in the writer's shape come as {@link DeferredMessage}s.
 */
export function readRecordBatches(path: string): AsyncGenerator<ReadItem[]>;
export function readRecordBatches(
  path: string,
  options: { deferMessages: true },
): AsyncGenerator<ResumeItem[]>;
export async function* readRecordBatches(
  path: string,
  options: { deferMessages?: boolean } = {},
): AsyncGenerator<ResumeItem[]> {
  // A skipped line is held back one step: only the next line tells whether it was the last.
  let held: Extract<ReadItem, { kind: "skipped" }> | null = null;
  const decoder = new TextDecoder();
  for await (const lines of readLineBatches(path)) {
    const items: ResumeItem[] = [];
    for (const { number, offset, bytes } of lines) {
      const deferred = options.deferMessages ? deferMessage(bytes, number, offset, decoder) : null;
      if (deferred) {
        if (held) items.push(held);
        held = null;
        items.push({ kind: "deferred", message: deferred });
        continue;
      }
      const text = decoder.decode(bytes);
      if (text.trim() === "") continue;
      if (held) items.push(held);
      held = null;
      const item = parseLine(text, number);
      if (item.kind === "record") items.push(item);
      else held = item;
    }
    if (items.length > 0) yield items;
  }
  if (held) yield [{ ...held, last: true }];
}

/** The line as a deferred message when it has the writer's shape and ends whole, else null. */
function deferMessage(bytes: Uint8Array, line: number, offset: number, decoder: TextDecoder) {
  // A line a kill cut short rarely ends in "}}": it is parsed now, and found cut.
  const n = bytes.length;
  if (n < 2 || bytes[n - 1] !== CLOSING_BRACE || bytes[n - 2] !== CLOSING_BRACE) return null;
  const match = MESSAGE_LINE.exec(decoder.decode(bytes.subarray(0, MESSAGE_HEAD_BYTES)));
  const role = match?.[1] as ChatMessage["role"] | undefined;
  if (!role || (role === "tool") !== (match?.[2] !== undefined)) return null;
  return { line, role, toolCallId: match?.[2] ?? null, offset, length: n };
}

/**
 * The message of a deferred line, read again from `file` (the session file, open), or null when
 * the line turns out to be no usable record.
 */
export function readDeferred(file: Deno.FsFile, deferred: DeferredMessage): ChatMessage | null {
  const bytes = new Uint8Array(deferred.length);
  file.seekSync(deferred.offset, Deno.SeekMode.Start);
  for (let read = 0; read < bytes.length;) {
    const n = file.readSync(bytes.subarray(read));
    if (n === null) return null;
    read += n;
  }
  const item = parseLine(new TextDecoder().decode(bytes), deferred.line);
  return item.kind === "record" && item.record.type === "message" ? item.record.message : null;
}

function parseLine(text: string, line: number): ReadItem {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { kind: "skipped", line, reason: "unparsable", problem: error.message, last: false };
  }
  const problem = recordProblem(value);
  if (problem) return { kind: "skipped", line, reason: "invalid", problem, last: false };
  return { kind: "record", line, record: value as SessionRecord };
}

function recordProblem(value: unknown): string | null {
  if (!isObject(value)) return "not a JSON object";
  const { type, ts } = value;
  if (typeof type !== "string") return `no "type"`;
  if (typeof ts !== "string") return `no "ts"`;
  const fields = Object.hasOwn(REQUIRED_FIELDS, type)
    ? REQUIRED_FIELDS[type as RecordType]
    : undefined;
  if (!fields) return `unknown record type "${type}"`;
  for (const [field, kind] of Object.entries(fields)) {
    const actual = value[field];
    const ok = kind === "object"
      ? isObject(actual)
      : kind === "number"
      ? typeof actual === "number"
      : typeof actual === "string";
    if (!ok) return `"${type}" record without ${kind} "${field}"`;
  }
  if (type === "message" && !isChatMessage(value.message)) {
    return `"message" record whose message is no chat message`;
  }
  return null;
}

function isChatMessage(value: unknown): value is ChatMessage {
  if (!isObject(value)) return false;
  switch (value.role) {
    case "system":
    case "user":
      return typeof value.content === "string";
    case "tool":
      return typeof value.tool_call_id === "string" && typeof value.name === "string" &&
        typeof value.content === "string";
    case "assistant":
      return (typeof value.content === "string" || value.content === null) &&
        (value.tool_calls === undefined ||
          (Array.isArray(value.tool_calls) && value.tool_calls.every(isToolCall)));
    default:
      return false;
  }
}

function isToolCall(value: unknown): boolean {
  return isObject(value) && typeof value.id === "string" && isObject(value.function) &&
    typeof value.function.name === "string" && typeof value.function.arguments === "string";
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** One line of text and its 1-based number; the last line may lack its newline. */
interface Line {
  number: number;
  text: string;
}

/** One line's bytes (without its newline), its 1-based number and where it starts. */
export interface LineBytes {
  number: number;
  /** Offset of the line's first byte in the file. */
  offset: number;
  /** A view into the reader's buffer: valid until the next batch is asked for. */
  bytes: Uint8Array;
}

/**
 * Bytes read per call, and so the lines handed on at once. Reads are synchronous, so their size
 * hardly changes the time; larger batches of parsed records raised a resume's peak memory (by
 * 8 MB at 256 KB, 40 MB at 1 MB, on a 10 MB and a 100 MB session).
 */
const READ_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** Splits a file into lines as it streams in, each decoded once; memory stays one line. */
export async function* readLines(path: string): AsyncGenerator<Line> {
  const decoder = new TextDecoder();
  for await (const batch of readLineBatches(path)) {
    for (const { number, bytes } of batch) yield { number, text: decoder.decode(bytes) };
  }
}

/**
 * Splits a file into lines as it streams in, a read's worth at a time, without decoding them:
 * a reader that wants a few lines (a listing wants the header and the turn starts) decodes only
 * those. Lines are cut in bytes: building them from decoded chunks made the peak memory of a
 * resume several MB higher (bench/session_bench.ts).
 */
export async function* readLineBatches(path: string): AsyncGenerator<LineBytes[]> {
  using file = await Deno.open(path, { read: true });
  // A folder opens like a file, and its first read fails with no path in the message.
  if ((await file.stat()).isDirectory) {
    throw new Deno.errors.IsADirectory(`Cannot read a session: ${describeWrongKind(path)}`);
  }
  const buffer = new Uint8Array(READ_BYTES);
  let pending: Uint8Array[] = [];
  let number = 0;
  /** Offset in the file of the buffer's first byte, and of the line being cut. */
  let bufferOffset = 0;
  let lineOffset = 0;
  // Synchronous reads: one of these blocks for tens of microseconds, while an async read of the
  // same size took two to five times longer in all (a thread hop and a copy per read).
  for (let read = file.readSync(buffer); read !== null; read = file.readSync(buffer)) {
    const batch: LineBytes[] = [];
    let start = 0;
    for (
      let end = buffer.indexOf(NEWLINE, start);
      end !== -1 && end < read;
      end = buffer.indexOf(NEWLINE, start)
    ) {
      const bytes = pending.length === 0
        ? buffer.subarray(start, end)
        : concatBytes([...pending, buffer.subarray(start, end)]);
      pending = [];
      batch.push({ number: ++number, offset: lineOffset, bytes });
      start = end + 1;
      lineOffset = bufferOffset + start;
    }
    if (batch.length > 0) yield batch;
    // The buffer is reused by the next read: keep a copy of the unfinished line.
    if (start < read) pending.push(buffer.slice(start, read));
    bufferOffset += read;
  }
  if (pending.length > 0) {
    yield [{ number: ++number, offset: lineOffset, bytes: concatBytes(pending) }];
  }
}
