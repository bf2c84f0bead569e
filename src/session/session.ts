/**
 * A live session: opened (new or resumed) once, then appended to line by line through one open
 * append handle, so each append costs the same at turn 1,000 as at turn 1.
 * @module
 */
import { dirname, join } from "../fs/path.ts";
import type { Config } from "../config/mod.ts";
import { ensureStateDir, openPrivateAppend } from "../fs/state_dir.ts";
import type { ChatMessage, ToolCall, Usage } from "../providers/types.ts";
import type { PermissionRecord } from "../tools/audit.ts";
import type { TurnStatus } from "../ui/events.ts";
import { Checkpoints } from "./checkpoints.ts";
import { readFileTail } from "./file_tail.ts";
import { scanSession } from "./load_session.ts";
import { readDeferred } from "./read_records.ts";
import type { NewRecord, SessionHeader, SessionRecord } from "./records.ts";
import { serializeRecord, type WriteRules, writeRulesFromConfig } from "./serialize_record.ts";
import { newSessionId, newSubagentId, sessionFile, validateSessionId } from "./session_id.ts";
import { type ParkedCall, SessionState } from "./session_state.ts";
import { describeAccessError, isAccessError } from "../fs/access_error.ts";

/** The version written in new headers. */
export const SESSION_FORMAT_VERSION = 1;

/** Options of {@link openSession}. */
export interface OpenSessionOptions {
  /** Supplies `noise_tools`, `session_tool_max_chars` and the `*api_key_env` names to scrub. */
  config: Config;
  /** Continue this session, or create it under this id when it does not exist. */
  id?: string | undefined;
  /** Recorded in a new header. */
  model?: string | undefined;
  /** Makes this a sub-agent session of `parent`, with an id `sub_<agentType>_<random>`. */
  parent?: string | undefined;
  agentType?: string | undefined;
  /**
   * Told once when the session file cannot be written (read-only worktree, no `--allow-write`):
   * the session then lives in memory only and the turn goes on.
   */
  onUnwritable?: ((message: string) => void) | undefined;
}

/**
 * Opens session `options.id` of `worktree` (resuming it when its file exists), or a new one.
 * Nothing is written until the first append: a session nobody used leaves no file.
 * @example
 * ```ts ignore
 * using session = await openSession(worktree, { config, model: "gpt-4o" });
 * const history = session.history(); // [] for a new session
 * session.beginTurn("fix the tests");
 * session.appendMessage({ role: "user", content: "fix the tests" });
 * ```
 */
export async function openSession(worktree: string, options: OpenSessionOptions): Promise<Session> {
  const rules = writeRulesFromConfig(options.config);
  const id = options.id === undefined
    ? await unusedId(worktree, options)
    : validateSessionId(options.id);
  const path = sessionFile(worktree, id);
  const fresh: SessionHeader = {
    id,
    version: SESSION_FORMAT_VERSION,
    worktree,
    created: new Date().toISOString(),
    ...(options.model ? { model: options.model } : {}),
    ...(options.parent !== undefined ? { parent: options.parent } : {}),
    ...(options.agentType !== undefined ? { agent_type: options.agentType } : {}),
  };
  const size = await fileSize(path);
  const onUnwritable = options.onUnwritable;
  if (size === 0) {
    const state = new SessionState();
    return new Session({ path, header: fresh, state, rules, warnings: [], onUnwritable });
  }

  const { state, report } = await resumeState(path);
  // A crashed turn is closed in memory now, and on disk at the first append: from the start, the
  // history and the prompt a retry sends are those of the closed turn.
  const ts = new Date().toISOString();
  const repairs = state.repairs().map((record) => ({ ...record, ts }) as SessionRecord);
  const crashed = repairs.some((record) => record.type === "turn_end");
  const leftovers = crashed ? await checkpointsOf(path).interruptedWrites(state.turns) : [];
  for (const record of repairs) state.apply(record);
  const tail = await readFileTail(path, size);
  // A kill mid-append leaves part of a line: no record, and once ended by a newline a line that
  // would never parse. It is dropped, so every line of the file parses again.
  const cut = !tail.endsWithNewline && report.truncatedLine;
  return new Session({
    path,
    header: report.header ?? fresh,
    state,
    rules,
    warnings: report.warnings,
    onUnwritable,
    resume: {
      needsNewline: !tail.endsWithNewline && !cut,
      cutLine: cut ? { from: tail.lastLineStart, size } : null,
      needsHeader: report.header === null,
      repairs,
      leftovers,
    },
  });
}

/**
 * The state a resume continues from. Message lines are read unparsed at first and parsed only if
 * still in the history at the end; should one of those turn out unusable, the file is read
 * again with every line parsed, so it is skipped and reported exactly as a full read does.
 */
async function resumeState(path: string) {
  const state = new SessionState();
  using file = await Deno.open(path, { read: true });
  const report = await scanSession(
    path,
    (record) => state.apply(record),
    (unread) => state.applyUnread(unread.role, unread.toolCallId, () => readDeferred(file, unread)),
  );
  if (state.settle()) return { state, report };
  const parsed = new SessionState();
  return { state: parsed, report: await scanSession(path, (record) => parsed.apply(record)) };
}

/** What a resumed file needs before its next line. */
interface ResumeFixes {
  /** The last line is a whole record without its newline: end it. */
  needsNewline: boolean;
  /** The last line was cut by a kill: the file is cut back to `from` while it is `size` bytes. */
  cutLine: { from: number; size: number } | null;
  needsHeader: boolean;
  /** Records that close a crashed turn, already applied to the state: written, not applied. */
  repairs: SessionRecord[];
  /** Temporary files the crashed turn's killed writes left in the worktree: removed. */
  leftovers: string[];
}

const NO_FIXES: ResumeFixes = {
  needsNewline: false,
  cutLine: null,
  needsHeader: false,
  repairs: [],
  leftovers: [],
};

interface SessionInit {
  path: string;
  header: SessionHeader;
  state: SessionState;
  rules: WriteRules;
  warnings: string[];
  onUnwritable?: ((message: string) => void) | undefined;
  resume?: ResumeFixes;
}

/**
 * One session's file and state. Appends are synchronous: lines reach the file in call order,
 * no caller can forget to await one, and a line is in the kernel once `append` returns, so
 * `kill -9` loses nothing already appended. Made by {@link openSession}.
 */
export class Session implements Disposable {
  /** The session id, also the file name without `.jsonl`. */
  readonly id: string;
  /** Absolute path of the session file (it may not exist before the first append). */
  readonly path: string;
  /** The header as written (or to be written) on line 1. */
  readonly header: SessionHeader;
  /** Lines of a resumed file that could not be used, one sentence each. */
  readonly warnings: readonly string[];
  readonly #state: SessionState;
  readonly #rules: WriteRules;
  #resume: ResumeFixes | null;
  #file: Deno.FsFile | null = null;
  #closed = false;
  /** Why the file cannot be written; appends then only update the state in memory. */
  #unwritable: string | null = null;
  readonly #onUnwritable: ((message: string) => void) | undefined;
  /** The files this session's file tools changed, turn by turn (for /undo and /diff). */
  readonly checkpoints: Checkpoints;

  /** Use {@link openSession}. */
  constructor(init: SessionInit) {
    this.id = init.header.id;
    this.path = init.path;
    this.header = init.header;
    this.warnings = init.warnings;
    this.#state = init.state;
    this.#rules = init.rules;
    this.#resume = init.resume ?? { ...NO_FIXES, needsHeader: true };
    this.#onUnwritable = init.onUnwritable;
    this.checkpoints = checkpointsOf(this.path);
  }

  /** Why this session is not saved (e.g. a read-only worktree), or null when it is. */
  get unwritable(): string | null {
    return this.#unwritable;
  }

  /** Saves `path` before the current turn's first change to it (file tools call this). */
  async checkpoint(path: string): Promise<void> {
    await this.checkpoints.save(this.#state.turns, path);
  }

  /** The model the session's turns use now: the last `model` record's, else the header's. */
  get model(): string | null {
    return this.#state.model ?? this.header.model ?? null;
  }

  /** Records that the turns from here on use `model` (nothing is written when it is the same). */
  appendModel(model: string): void {
    if (model !== this.model) this.append({ type: "model", model });
  }

  /** The number of the last turn started; a resumed session's next turn is `turns + 1`. */
  get turns(): number {
    return this.#state.turns;
  }

  /** The calls a `--park` run stopped at that still wait for their result. */
  parked(): ParkedCall[] {
    return this.#state.parked();
  }

  /** The last assistant message's calls that have no result yet (what a resume runs). */
  unanswered(): ToolCall[] {
    return this.#state.unanswered();
  }

  /** How many messages the session holds, compacted ones included. */
  get messageCount(): number {
    return this.#state.messageCount;
  }

  /**
   * The history a model continues from, as a resume sees it: the last compaction summary, the
   * messages after it, and a synthetic result for any tool call whose result was never written;
   * the prompt of a turn that failed or was cancelled before the model replied is left out (the
   * model never saw it; {@link unansweredPrompt}). Contents are as appended in this process, as
   * persisted (noise and caps applied) for messages loaded from the file.
   */
  history(): ChatMessage[] {
    return this.#state.history();
  }

  /** Appends one record (`ts` defaults to now); creates the file and its folder on first use. */
  append(record: NewRecord): void {
    if (this.#closed) {
      throw new Error(`Cannot append to session "${this.id}": it is closed: open it again`);
    }
    const full = { ...record, ts: record.ts ?? new Date().toISOString() } as SessionRecord;
    let text = serializeRecord(full, this.#rules);
    let prelude: SessionRecord[] = [];
    if (this.#file === null) {
      const fixes = this.#resume ?? NO_FIXES;
      prelude = fixes.repairs;
      const header: SessionRecord[] = fixes.needsHeader
        ? [{ type: "session", ts: this.header.created, ...this.header }]
        : [];
      // Synthetic results are ours, not a tool's output: noise_tools and caps do not apply.
      const exact = { ...this.#rules, noiseTools: new Set<string>(), toolMaxChars: 0 };
      text = [...header, ...prelude].map((r) => serializeRecord(r, exact)).join("") + text;
      let ending = fixes.needsNewline ? "\n" : "";
      if (this.#unwritable === null) {
        try {
          this.#file = openForAppend(this.path);
          if (fixes.cutLine && !dropCutLine(this.#file, fixes.cutLine)) ending = "\n";
          for (const temp of fixes.leftovers) removeIfPresent(temp);
          this.#resume = null;
        } catch (error) {
          if (!isAccessError(error)) throw error;
          this.#unwritable = describeAccessError(error);
          this.#resume = null;
          this.#onUnwritable?.(
            `sessions are off, this one is kept in memory only: cannot write ` +
              `${dirname(this.path)}: ${this.#unwritable}`,
          );
        }
      }
      text = ending + text;
    }
    if (this.#file !== null) writeWhole(this.#file, new TextEncoder().encode(text));
    this.#state.apply(full);
  }

  /**
   * The prompt of the last turn when it failed or was cancelled before the model replied, else
   * null. The prompt stays in the file but not in {@link history}: `replio run --continue`
   * without a prompt sends it again.
   */
  get unansweredPrompt(): string | null {
    return this.#state.unansweredPrompt;
  }

  /** Appends a chat message: user, assistant (text, reasoning, tool calls) or tool result. */
  appendMessage(message: ChatMessage): void {
    this.append({ type: "message", message });
  }

  /** Appends one permission audit record (its own `ts` is kept). */
  appendPermission(record: PermissionRecord): void {
    this.append({ type: "permission", ...record });
  }

  /** Appends an error the turn reported. */
  appendError(code: string, message: string): void {
    this.append({ type: "error", code, message });
  }

  /** Starts the next turn and returns its number. */
  beginTurn(prompt: string): number {
    const turn = this.#state.turns + 1;
    this.append({ type: "turn_start", turn, prompt });
    return turn;
  }

  /** Ends the current turn. */
  endTurn(status: TurnStatus, usage: Usage): void {
    this.append({ type: "turn_end", status, usage });
  }

  /**
   * Records that `summary` replaces every message but the last `keepLast`; the history then
   * starts with {@link summaryMessage}(summary).
   */
  appendCompaction(summary: string, keepLast: number): void {
    const upto = this.#state.messageCount - 1 - Math.max(0, keepLast);
    this.append({ type: "compaction", summary, upto });
  }

  /** Closes the append handle; later appends throw. */
  close(): void {
    this.#closed = true;
    this.#file?.close();
    this.#file = null;
  }

  /** Closes the session (for `using`). */
  [Symbol.dispose](): void {
    this.close();
  }
}

async function unusedId(worktree: string, options: OpenSessionOptions): Promise<string> {
  for (;;) {
    const id = options.parent === undefined
      ? newSessionId()
      : newSubagentId(options.agentType ?? "agent");
    if (await fileSize(sessionFile(worktree, id)) === 0) return id;
  }
}

/** The size of `path`, 0 when it does not exist. */
async function fileSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return 0;
    throw error;
  }
}

/** The checkpoints kept beside the session file at `path`. */
function checkpointsOf(path: string): Checkpoints {
  return new Checkpoints(path.replace(/\.jsonl$/, ".checkpoints"));
}

/**
 * Cuts the file back to the end of its last whole line, unless it has changed since it was read
 * (another process appended): then the caller ends the cut line instead.
 */
function dropCutLine(file: Deno.FsFile, cut: { from: number; size: number }): boolean {
  if (file.statSync().size !== cut.size) return false;
  file.truncateSync(cut.from);
  return true;
}

function removeIfPresent(path: string): void {
  try {
    Deno.removeSync(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

function openForAppend(path: string): Deno.FsFile {
  const dir = dirname(path);
  ensureStateDir(dirname(dir));
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  // Transcripts hold file contents and command output: keep them out of commits by default.
  // Written whenever missing, not only with the folder: a kill between the two left it without.
  try {
    Deno.writeTextFileSync(join(dir, ".gitignore"), "*\n", { createNew: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  return openPrivateAppend(path);
}

/** One write call per line keeps concurrent writers from splitting lines; the loop is a guard. */
function writeWhole(file: Deno.FsFile, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += file.writeSync(bytes.subarray(written));
}
