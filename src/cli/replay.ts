/**
 * `replio replay SESSION`: a recorded session as a regression test. The recorded assistant
 * replies drive the real loop (src/providers/replay.ts); every tool call runs again through
 * today's registry and policy, in a scratch copy of the worktree (or `--here`), confirmations
 * are answered as they were recorded, and each result is compared with the recorded one after
 * normalising times, paths and ids. A difference exits 1; `--update` re-records the session.
 * @module
 */
import { join } from "../fs/path.ts";
import { Agent, RESUMED_PROMPT, type ResumeState } from "../engine/mod.ts";
import type { TurnLog } from "../engine/turn_log.ts";
import type { ChatMessage } from "../providers/types.ts";
import { ReplayProvider } from "../providers/replay.ts";
import type { NewRecord, SessionHeader, SessionRecord } from "../session/mod.ts";
import { serializeRecord, writeRulesFromConfig } from "../session/serialize_record.ts";
import { writeFileAtomic } from "../fs/write_file_atomic.ts";
import { ToolPolicy } from "../tools/mod.ts";
import type { AskRequest } from "../tools/types.ts";
import type { ConfirmAnswer, ConfirmRequest, Sink, TurnEvent } from "../ui/events.ts";
import { createStyles, wantsColor } from "../ui/styles.ts";
import { TerminalSink } from "../ui/terminal.ts";
import { fileWriter } from "../ui/writer.ts";
import { type Config, loadConfig } from "../config/mod.ts";
import { displayOf } from "../repl/mod.ts";
import { EXIT } from "./errors.ts";
import { resolveWorktree } from "./resolve_worktree.ts";
import { resolveSessionFile } from "./session_files.ts";
import { readRecording, RecordedAnswers, type Recording } from "./replay_recording.ts";
import { openWorkspace } from "./workspace.ts";

/** Options of `replio replay`. */
export interface ReplayOptions {
  here?: boolean;
  update?: boolean;
  json?: boolean;
  /** Render the replay as the REPL would (the demo), instead of the comparison report. */
  show?: boolean;
  mode?: string;
  path?: string;
  /** `--trust`: the folder is trusted for this run (its settings, and the recording's answers). */
  trust?: boolean;
}

/** How one call compared. */
export interface CallComparison {
  call: string;
  tool: string;
  /** `same`, `differs`, `missing` (recorded, not run now) or `new` (run now, not recorded). */
  outcome: "same" | "differs" | "missing" | "new";
  recorded?: string;
  replayed?: string;
  /** Lines of a unified diff of the normalised outputs, for `differs`. */
  diff?: string[];
}

/** The replay's findings. */
export interface ReplayReport {
  session: string;
  worktree: string;
  turns: number;
  calls: CallComparison[];
  same: boolean;
}

/** Kinds of calls whose results come from a person or another model, not from the tool. */
const NOT_REPRODUCIBLE = new Set(["ask", "delegate"]);

/** Runs the replay; returns the exit code (1 on any difference). */
export async function runReplay(target: string, options: ReplayOptions): Promise<number> {
  const worktree = await resolveWorktree(options.path);
  const file = await resolveSessionFile(worktree, target);
  const recording = await readRecording(file);
  const runDir = options.here ? worktree : await scratchCopy(worktree);
  // The scratch copy is trusted exactly when the worktree it copies is.
  const trusted = (await loadConfig({ worktree, trust: options.trust })).trust.trusted;
  try {
    const { report, records } = await replay(recording, runDir, {
      ...options,
      trust: trusted,
      worktree,
    });
    report.worktree = worktree;
    if (options.update) await rewriteSession(file, recording.header, records, runDir, trusted);
    if (!options.show) {
      const out = options.json ? JSON.stringify(report) + "\n" : formatReplayReport(report);
      await Deno.stdout.write(new TextEncoder().encode(out));
    }
    return report.same || options.update ? EXIT.ok : EXIT.failed;
  } finally {
    if (!options.here) await Deno.remove(runDir, { recursive: true });
  }
}

/** Records the replay appends, for `--update`. */
class MemoryLog implements TurnLog {
  readonly id: string;
  readonly records: NewRecord[] = [];
  #turns = 0;
  constructor(id: string) {
    this.id = id;
  }
  get messageCount(): number {
    return this.messages.length;
  }
  /** The messages so far, as the next turn's agent starts from them. */
  get messages(): ChatMessage[] {
    return this.records.flatMap((r) => r.type === "message" ? [r.message] : []);
  }
  history(): ChatMessage[] {
    return this.messages;
  }
  append(record: NewRecord): void {
    this.records.push({ ts: new Date().toISOString(), ...record });
  }
  beginTurn(prompt: string): number {
    this.append({ type: "turn_start", turn: ++this.#turns, prompt });
    return this.#turns;
  }
}

/** Answers confirmations as recorded and keeps what each call returned. */
class ReplaySink implements Sink {
  readonly outputs = new Map<string, { name: string; output: string }>();
  readonly #answers: RecordedAnswers;
  readonly #inner: Sink | null;
  /** The turn being replayed (0-based), set by the replay loop. */
  turn = 0;
  #current = { id: "", name: "", args: {} as unknown };

  constructor(answers: RecordedAnswers, inner: Sink | null) {
    this.#answers = answers;
    this.#inner = inner;
  }

  emit(event: TurnEvent): void {
    if (event.type === "tool_call") {
      this.#current = { id: event.id, name: event.name, args: event.arguments };
    }
    if (event.type === "tool_result") {
      this.outputs.set(event.id, { name: event.name, output: event.output });
    }
    this.#inner?.emit(event);
  }

  confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    // What the person (or --yes) answered for exactly this call when the session was recorded;
    // any other call is declined now: a replay never grants more than the recording did.
    const granted = this.#answers.granted({
      turn: this.turn,
      callId: this.#current.id,
      name: this.#current.name,
      tool: request.tool,
      args: this.#current.args,
      protectedPath: request.protectedPath,
    });
    return Promise.resolve(granted ? "yes" : "no");
  }

  ask(_request: AskRequest): Promise<string | null> {
    return Promise.resolve(null);
  }
}

async function replay(
  recording: Recording,
  runDir: string,
  options: ReplayOptions & { trust: boolean; worktree: string },
): Promise<{ report: ReplayReport; records: NewRecord[] }> {
  const ws = await openWorkspace({ path: runDir, mode: options.mode, trust: options.trust });
  const provider = new ReplayProvider(recording.header.model ?? "recorded");
  const log = new MemoryLog(recording.header.id);
  const inner = options.show ? terminalSink(ws.config) : null;
  const answers = new RecordedAnswers(recording, options.trust);
  if (!answers.trusted && recording.decisions.some((d) => d.decision === "granted")) {
    await Deno.stderr.write(new TextEncoder().encode(
      `replio: untrusted folder ${options.worktree}: the recording's answers grant nothing, so ` +
        "calls a person or --yes allowed when it was recorded are declined: trust the folder " +
        "(replio trust) or pass --trust to replay them as answered\n",
    ));
  }
  const sink = new ReplaySink(answers, inner?.sink ?? null);
  for (const [index, turn] of recording.turns.entries()) {
    sink.turn = index;
    // Each turn answers ask-gated calls as its own run did (a REPL, --yes, denied, --park).
    const agent = new Agent({
      provider,
      registry: ws.registry,
      policy: new ToolPolicy({
        config: ws.config,
        worktree: ws.worktree,
        mode: options.mode,
        // A recording's --yes is an answer too: an untrusted one grants nothing.
        headless: turn.headless === "yes" && !answers.trusted ? "no" : turn.headless,
      }),
      config: ws.config,
      session: log,
      sink,
      maxRounds: Number.MAX_SAFE_INTEGER,
    });
    provider.load(turn.replies);
    const signal = new AbortController().signal;
    if (turn.prompt === RESUMED_PROMPT) {
      inner?.begin("(replio approve, then run --resume)");
      await agent.resumeTurn(resumeFromLog(log, answers), signal);
    } else {
      inner?.begin(turn.prompt);
      await agent.runTurn(turn.prompt, signal);
    }
    inner?.sink.settle();
  }
  const paths = [recording.header.worktree, runDir, ws.worktree];
  const calls = compareCalls(recording, sink.outputs, paths);
  const report: ReplayReport = {
    session: recording.header.id,
    worktree: runDir,
    turns: recording.turns.length,
    calls,
    same: calls.every((c) => c.outcome === "same"),
  };
  return { report, records: log.records };
}

function compareCalls(
  recording: Recording,
  outputs: Map<string, { name: string; output: string }>,
  paths: string[],
): CallComparison[] {
  const calls: CallComparison[] = [];
  for (const [id, recorded] of recording.results) {
    const now = outputs.get(id);
    if (!now) {
      calls.push({ call: id, tool: recorded.name, outcome: "missing", recorded: recorded.content });
      continue;
    }
    if (NOT_REPRODUCIBLE.has(now.name)) {
      calls.push({ call: id, tool: now.name, outcome: "same" });
      continue;
    }
    const before = normalise(recorded.content, paths);
    const after = normalise(now.output, paths);
    calls.push(
      before === after ? { call: id, tool: now.name, outcome: "same" } : {
        call: id,
        tool: now.name,
        outcome: "differs",
        recorded: recorded.content,
        replayed: now.output,
        diff: lineDiff(before, after),
      },
    );
  }
  for (const [id, now] of outputs) {
    if (!recording.results.has(id)) {
      calls.push({ call: id, tool: now.name, outcome: "new", replayed: now.output });
    }
  }
  return calls;
}

/**
 * What may differ between two faithful runs: the worktree's path, times, durations and ids.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   normalise("/tmp/w/a.txt at 2026-12-02T10:00:00.000Z took 12 ms", ["/tmp/w"]),
 *   "<worktree>/a.txt at <time> took <duration>",
 * );
 * ```
 */
export function normalise(text: string, paths: string[]): string {
  let out = text;
  // Longest first: a scratch folder may sit inside the original's parent.
  for (const path of [...new Set(paths)].sort((a, b) => b.length - a.length)) {
    if (path) out = out.replaceAll(path, "<worktree>");
  }
  return out
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, "<time>")
    .replace(/\b(?:ses|sub)_[A-Za-z0-9]+_[A-Za-z0-9_]*[a-z0-9]{6}\b/g, "<session>")
    .replace(/\b\d+(?:\.\d+)? ?(?:ms|s)\b/g, "<duration>");
}

/** A resumed turn replayed: the calls the log's last reply left open, answered as recorded. */
function resumeFromLog(log: MemoryLog, answers: RecordedAnswers): ResumeState {
  const messages = log.messages;
  const answered = new Set(
    messages.flatMap((m) => m.role === "tool" ? [m.tool_call_id] : []),
  );
  const last = messages.findLast((m) => m.role === "assistant");
  const calls = last?.role === "assistant" ? last.tool_calls ?? [] : [];
  const open = calls.filter((call) => !answered.has(call.id));
  // The answer goes into the replayed log too, so --update keeps it.
  for (const call of open) {
    const approval = answers.approvalRecord(call.id);
    if (approval) {
      const { ts: _ts, ...record } = approval;
      log.append(record);
    }
  }
  return {
    calls: open,
    interrupted: new Set(),
    answer: (call) => Promise.resolve(answers.approval(call)),
  };
}

/** A minimal line diff: the common head and tail kept out, the middle shown as -/+. */
function lineDiff(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  return [
    `@@ line ${head + 1} @@`,
    ...a.slice(head, a.length - tail).map((line) => `- ${line}`),
    ...b.slice(head, b.length - tail).map((line) => `+ ${line}`),
  ];
}

/** The report for people: one line per call, diffs under the ones that differ. */
export function formatReplayReport(report: ReplayReport): string {
  const lines = [
    `replay of ${report.session}: ${report.turns} turns, ${report.calls.length} calls`,
  ];
  for (const c of report.calls) {
    const mark = { same: "ok  ", differs: "DIFF", missing: "MISS", new: "NEW " }[c.outcome];
    lines.push(`${mark} ${c.call} ${c.tool}`);
    if (c.diff) lines.push(...c.diff.map((line) => `     ${line}`));
    if (c.outcome === "missing") lines.push("     recorded, but the replay never ran it");
    if (c.outcome === "new") lines.push("     the replay ran it, the recording has no result");
  }
  const bad = report.calls.filter((c) => c.outcome !== "same").length;
  lines.push(
    bad === 0
      ? "every result matches the recording"
      : `${bad} of ${report.calls.length} calls differ: rerun with --update to re-record`,
  );
  return lines.join("\n") + "\n";
}

/** Copies the worktree (without replio's sessions and history), keeping modification times. */
async function scratchCopy(worktree: string): Promise<string> {
  const target = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_replay_" }));
  const skip = new Set([
    join(worktree, ".replio", "sessions"),
    join(worktree, ".replio", "history"),
  ]);
  const copy = async (from: string, to: string): Promise<void> => {
    for await (const entry of Deno.readDir(from)) {
      const source = join(from, entry.name);
      const dest = join(to, entry.name);
      if (skip.has(source)) continue;
      const info = await Deno.lstat(source);
      if (info.isSymlink) {
        await Deno.symlink(await Deno.readLink(source), dest);
        continue;
      }
      if (info.isDirectory) {
        await Deno.mkdir(dest, { mode: info.mode ?? 0o755 });
        await copy(source, dest);
      } else {
        await Deno.copyFile(source, dest);
      }
      // glob and grep list newest first: the copy must keep the order.
      if (info.mtime && info.atime) await Deno.utime(dest, info.atime, info.mtime);
    }
  };
  await copy(worktree, target);
  return target;
}

/** Rewrites the session with the replay's records under the original header. */
async function rewriteSession(
  file: string,
  header: SessionHeader,
  records: NewRecord[],
  runDir: string,
  trust: boolean,
): Promise<void> {
  const { config } = await openWorkspace({ path: runDir, trust });
  const rules = writeRulesFromConfig(config);
  const ts = new Date().toISOString();
  const lines = [
    serializeRecord({ type: "session", ts, ...header }, rules),
    ...records.map((r) => serializeRecord({ ts, ...r } as SessionRecord, rules)),
  ];
  await writeFileAtomic(file, lines.join(""));
}

/** The REPL's renderer, for `--show`: each turn starts with the prompt as the person typed it. */
function terminalSink(config: Config): { sink: TerminalSink; begin: (prompt: string) => void } {
  const out = fileWriter(Deno.stdout);
  const styles = createStyles(wantsColor(Deno.stdout));
  const sink = new TerminalSink({
    out,
    styles,
    width: () => Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 80,
    animate: false,
    // The REPL's own display settings, so the demo looks as the user's REPL does.
    display: displayOf(config),
    // Confirmations are answered from the recording: nothing is ever read from a person.
    prompter: { question: () => Promise.resolve({ kind: "eof" }) },
    onInterrupt: () => {},
  });
  return {
    sink,
    begin: (prompt) => {
      out.write(`${styles.bold("> ")}${prompt}\n`);
      sink.beginTurn();
    },
  };
}
