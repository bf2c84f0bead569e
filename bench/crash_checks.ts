/**
 * What must hold after `kill -9` of a run, whatever moment the kill landed on: the session file
 * parses, every event the run showed is in it, and every file in the worktree is whole. Each
 * check returns its problems as sentences; none means it holds.
 * @module
 */
import { join, relative } from "node:path";
import { loadSession } from "../src/session/load_session.ts";
import { readRecords } from "../src/session/read_records.ts";
import type { SessionRecord } from "../src/session/records.ts";
import type { SeenEvent } from "./crash_run.ts";
import type { ScenarioFile } from "./crash_scenario.ts";

/** Folders of the worktree that are replio's or git's, not the project's files. */
const NOT_PROJECT = new Set([".replio", ".xdg", ".git"]);
/** The temporary name `writeFileAtomic` gives the new version before renaming it. */
const ATOMIC_TEMP = /^\..+\.[0-9a-f]{8}\.tmp$/;

/**
 * The session file parses: every line is a record, except that a kill may have cut the last line
 * (then it has no newline). Once `resumed`, no line may be cut: the resume drops a cut one.
 */
export async function checkSessionParses(
  worktree: string,
  id: string,
  resumed: boolean,
): Promise<string[]> {
  const problems: string[] = [];
  const path = join(worktree, ".replio", "sessions", `${id}.jsonl`);
  const endsWhole = await cutLineNumber(path) === null;
  for await (const item of readRecords(path)) {
    if (item.kind === "record") continue;
    const cutByKill = !resumed && item.reason === "unparsable" && item.last && !endsWhole;
    if (!cutByKill) problems.push(`session line ${item.line} does not parse: ${item.problem}`);
  }
  try {
    await loadSession(worktree, id);
  } catch (error) {
    problems.push(`loadSession failed: ${error instanceof Error ? error.message : error}`);
  }
  return problems;
}

/** The number of the line a kill cut (the file's last, without a newline), or null. */
export async function cutLineNumber(path: string): Promise<number | null> {
  const bytes = await Deno.readFile(path);
  if (bytes.length === 0 || bytes.at(-1) === 0x0a) return null;
  return bytes.reduce((count, byte) => count + (byte === 0x0a ? 1 : 0), 0) + 1;
}

/**
 * Every event the run showed that stands for a record is in the session: each tool call in an
 * assistant message, each tool result with its output, each permission, error and turn end in
 * the order shown.
 */
export function checkEventsRecorded(
  events: readonly SeenEvent[],
  records: SessionRecord[],
): string[] {
  const problems: string[] = [];
  const calls = new Set<string>();
  const results = new Map<string, string>();
  for (const record of records) {
    if (record.type !== "message") continue;
    const message = record.message;
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) calls.add(call.id);
    }
    if (message.role === "tool") results.set(message.tool_call_id, message.content);
  }
  const ordered = (type: string) => records.filter((r) => r.type === type);
  const queues = {
    permission: ordered("permission"),
    error: ordered("error"),
    turn_end: ordered("turn_end"),
  };
  for (const { event } of events) {
    const id = String(event.id);
    switch (event.type) {
      case "tool_call":
        if (!calls.has(id)) {
          problems.push(`tool_call ${id} was shown but no assistant record has it`);
        }
        break;
      case "tool_result":
        if (!results.has(id)) problems.push(`tool_result ${id} was shown but not recorded`);
        else if (results.get(id) !== event.output) {
          problems.push(`tool_result ${id} was recorded with other content than shown`);
        }
        break;
      case "permission":
      case "error":
      case "turn_end": {
        const record = queues[event.type].shift() as Record<string, unknown> | undefined;
        const fields = event.type === "permission"
          ? ["tool", "action", "decision", "reason"]
          : event.type === "error"
          ? ["code", "message"]
          : ["status"];
        const differs = record && fields.find((field) => record[field] !== event[field]);
        if (!record) problems.push(`${event.type} event was shown but not recorded`);
        else if (differs) {
          problems.push(`${event.type} record differs from the event in "${differs}"`);
        }
      }
    }
  }
  return problems;
}

/** What one scenario file holds now. */
export type FileState = "before" | "after" | "absent" | "other";

/** The state of each scenario file, and the files in the worktree that are none of them. */
export async function worktreeState(
  worktree: string,
  files: readonly ScenarioFile[],
): Promise<{ states: Map<string, FileState>; temps: string[]; strays: string[] }> {
  const states = new Map<string, FileState>();
  for (const file of files) {
    const text = await Deno.readTextFile(join(worktree, file.path)).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    });
    states.set(
      file.path,
      text === null
        ? "absent"
        : text === file.before
        ? "before"
        : text === file.after
        ? "after"
        : "other",
    );
  }
  const known = new Set(files.map((f) => f.path));
  const temps: string[] = [];
  const strays: string[] = [];
  for await (const path of walk(worktree)) {
    const name = relative(worktree, path);
    if (known.has(name)) continue;
    (ATOMIC_TEMP.test(name.split("/").at(-1)!) ? temps : strays).push(name);
  }
  return { states, temps, strays };
}

/**
 * No file is half-written: each scenario file holds its content from before the turn or the
 * content the model wrote (a file that did not exist may still not), and no other file appeared.
 */
export function checkFilesWhole(
  state: Awaited<ReturnType<typeof worktreeState>>,
  files: readonly ScenarioFile[],
): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const now = state.states.get(file.path);
    if (now === "other") problems.push(`${file.path} is neither its old nor its new content`);
    if (now === "absent" && file.before !== null) problems.push(`${file.path} is gone`);
  }
  for (const stray of state.strays) problems.push(`an unexpected file appeared: ${stray}`);
  return problems;
}

/** Every file under `dir`, leaving out replio's and git's folders at the top. */
async function* walk(dir: string, top = true): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (top && NOT_PROJECT.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path, false);
    else yield path;
  }
}
