/**
 * The sessions of a worktree with what a list needs, from the start and the end of each file:
 * its header and first turn, and its last turn. A 100 MB session is listed as fast as a small one.
 * @module
 */
import { readLinesBackward } from "./read_lines_backward.ts";
import { readLineBatches } from "./read_records.ts";
import type { SessionHeader } from "./records.ts";
import { isSessionId, sessionFile, sessionsDir } from "./session_id.ts";

/** The prompt preview is cut here: a list row, not the prompt. */
const PREVIEW_MAX_CHARS = 100;
/**
 * Only these lines are decoded and parsed; the writer puts `type` first, so a prefix of bytes
 * identifies them.
 */
const TURN_START_PREFIX = new TextEncoder().encode('{"type":"turn_start"');

/** One row of a session list. */
export interface SessionSummary {
  id: string;
  /** ISO creation time from the header (the file's birth or change time when it has none). */
  created: string;
  /** ISO time of the last write. */
  updated: string;
  /** The number of the last turn (turns are numbered across the session, resumes included). */
  turns: number;
  /** First line of the first prompt, cut to 100 chars; "" before the first turn. */
  firstPrompt: string;
  /** First line of the last prompt, cut to 100 chars; "" before the first turn. */
  lastPrompt: string;
  /** File size in bytes. */
  size: number;
  model?: string;
  parent?: string;
  agentType?: string;
}

/** Every session of `worktree`, most recently updated first; [] when there are none. */
export async function listSessions(worktree: string): Promise<SessionSummary[]> {
  const summaries: SessionSummary[] = [];
  for (const id of await sessionIds(worktree)) summaries.push(await summarize(worktree, id));
  return summaries.sort(byUpdate);
}

/** What choosing the session to continue needs of one session: read from its first line only. */
export interface SessionHead {
  id: string;
  /** ISO time of the last write. */
  updated: string;
  parent?: string;
}

/**
 * Every session of `worktree` as {@link listSessions} orders them, reading only each file's
 * header: `--continue` needs no turn counts, and counting them reads every session whole.
 */
export async function listSessionHeads(worktree: string): Promise<SessionHead[]> {
  const heads: SessionHead[] = [];
  for (const id of await sessionIds(worktree)) {
    const path = sessionFile(worktree, id);
    const stat = await Deno.stat(path);
    const header = await readHeader(path);
    heads.push({
      id,
      updated: (stat.mtime ?? new Date(0)).toISOString(),
      ...(header?.parent ? { parent: header.parent } : {}),
    });
  }
  return heads.sort(byUpdate);
}

function byUpdate(a: { id: string; updated: string }, b: { id: string; updated: string }) {
  return b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id);
}

/** The ids of the session files of `worktree`; [] when it has no sessions folder. */
async function sessionIds(worktree: string): Promise<string[]> {
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(sessionsDir(worktree)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  return entries.flatMap((entry) => {
    const id = entry.name.endsWith(".jsonl") ? entry.name.slice(0, -".jsonl".length) : "";
    return entry.isFile && isSessionId(id) ? [id] : [];
  });
}

/** The header on line 1, or null when that line is none. */
async function readHeader(path: string): Promise<SessionHeader | null> {
  for await (const [line] of readLineBatches(path)) {
    return line ? parseHeader(new TextDecoder().decode(line.bytes)) : null;
  }
  return null;
}

async function summarize(worktree: string, id: string): Promise<SessionSummary> {
  const path = sessionFile(worktree, id);
  const stat = await Deno.stat(path);
  const updated = (stat.mtime ?? new Date(0)).toISOString();
  const { header, first } = await readStart(path);
  const last = first ? await readLastTurn(path) : null;
  return {
    id,
    created: header?.created ?? (stat.birthtime ?? stat.mtime ?? new Date(0)).toISOString(),
    updated,
    turns: last?.turn ?? 0,
    firstPrompt: preview(first?.prompt ?? ""),
    lastPrompt: preview(last?.prompt ?? ""),
    size: stat.size,
    ...(header?.model ? { model: header.model } : {}),
    ...(header?.parent ? { parent: header.parent } : {}),
    ...(header?.agent_type ? { agentType: header.agent_type } : {}),
  };
}

/** A `turn_start` line's number and prompt. */
interface TurnStart {
  turn: number;
  prompt: string;
}

/** The header and the first turn, read from the start until that turn begins. */
async function readStart(
  path: string,
): Promise<{ header: SessionHeader | null; first: TurnStart | null }> {
  const decoder = new TextDecoder();
  let header: SessionHeader | null = null;
  for await (const batch of readLineBatches(path)) {
    for (const { number, bytes } of batch) {
      if (number === 1) header = parseHeader(decoder.decode(bytes));
      const first = startsWith(bytes, TURN_START_PREFIX) ? parseTurn(decoder.decode(bytes)) : null;
      if (first) return { header, first };
    }
  }
  return { header, first: null };
}

/**
 * The last turn, read from the end: turns are numbered across the whole session, so its number
 * is the count (what a resume numbers the next turn after), and nothing before it is read.
 */
async function readLastTurn(path: string): Promise<TurnStart | null> {
  const decoder = new TextDecoder();
  for await (const bytes of readLinesBackward(path)) {
    const turn = startsWith(bytes, TURN_START_PREFIX) ? parseTurn(decoder.decode(bytes)) : null;
    if (turn) return turn;
  }
  return null;
}

function preview(prompt: string): string {
  return (prompt.trim().split("\n")[0] ?? "").slice(0, PREVIEW_MAX_CHARS);
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[i] !== prefix[i]) return false;
  return true;
}

function parseHeader(text: string): SessionHeader | null {
  const value = parseJson(text);
  return value?.type === "session" && typeof value.created === "string"
    ? value as unknown as SessionHeader
    : null;
}

function parseTurn(text: string): TurnStart | null {
  const value = parseJson(text);
  return typeof value?.prompt === "string" && typeof value.turn === "number"
    ? { turn: value.turn, prompt: value.prompt }
    : null;
}

/** A line a crash cut short is not an error in a listing: it is skipped like `show` skips it. */
function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? value as Record<string, unknown> : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}
