/**
 * `replio run`: one headless turn (DESIGN.md §4). The prompt comes from the arguments or, when
 * there are none, from stdin; stdin is never read again and no person is ever waited on. With
 * `--continue` or `--session` and no prompt, the session's last prompt is sent again when it
 * got no reply. SIGINT or SIGTERM cancels the turn (stream and tools aborted, partial output
 * saved, exit 130).
 * @module
 */
import { createProvider } from "../providers/mod.ts";
import { noticeOnStderr } from "./notice.ts";
import { isSessionId, openSession, type Session } from "../session/mod.ts";
import type { TurnResult } from "../engine/mod.ts";
import type { TurnStatus } from "../ui/events.ts";
import { fileWriter } from "../ui/writer.ts";
import { chooseSession } from "./choose_session.ts";
import { EXIT, UsageError } from "./errors.ts";
import { createRootAgent } from "./start_agent.ts";
import { resumeState } from "../engine/mod.ts";
import { parkedNotice, parkedSession } from "./parked.ts";
import { createRunSink } from "./run_sink.ts";
import { openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";
import { handleSignals } from "./exit_signals.ts";

/** Options of `replio run`. */
export interface RunOptions {
  output: "text" | "json" | "stream-json";
  yes?: boolean;
  no?: boolean;
  model?: string;
  baseUrl?: string;
  session?: string;
  continue?: boolean;
  mode?: string;
  /** `--permission-mode`: the same as `mode`, which wins when both are given. */
  permissionMode?: string;
  path?: string;
  maxRounds?: number;
  /** Stop at the first ask-gated call and wait for `replio approve` / `replio deny`. */
  park?: boolean;
  /** Continue this session's parked turn. */
  resume?: string;
  /** `--trust`: load the worktree's own settings for this invocation. */
  trust?: boolean;
}

/** Exit code per turn status (DESIGN.md §4). */
const EXIT_BY_STATUS: Record<TurnStatus, number> = {
  ok: EXIT.ok,
  truncated: EXIT.ok,
  error: EXIT.failed,
  max_rounds: EXIT.failed,
  cancelled: EXIT.cancelled,
  parked: EXIT.parked,
};

/** Runs one turn and returns the exit code. */
export async function runHeadless(promptArg: string, options: RunOptions): Promise<number> {
  if (options.session !== undefined && !isSessionId(options.session)) {
    throw new UsageError(
      `Cannot use --session "${options.session}": ids use letters, digits, "_", "." and "-": see replio sessions list`,
    );
  }
  if (options.park && options.yes) {
    throw new UsageError("Cannot run with both --park and --yes: choose one");
  }
  if (options.resume !== undefined && (promptArg.trim() || options.session !== undefined)) {
    throw new UsageError(
      "Cannot resume with a prompt or --session: --resume ID continues that session's parked turn",
    );
  }
  // A session named by --session or --continue may hold a prompt to retry: no prompt is then
  // no mistake, and the session decides once it is open.
  const canRetry = options.continue === true || options.session !== undefined;
  const given = options.resume !== undefined
    ? ""
    : promptArg.trim()
    ? promptArg
    : await readPromptFromStdin(canRetry);
  const mode = options.mode ?? options.permissionMode;
  const ws = await openWorkspace({ ...options, ...mode ? { mode } : {}, headless: options });
  const resume = options.resume === undefined ? null : await parkedSession(ws, options.resume);
  const id = options.resume ?? await chooseSession(ws.worktree, options);
  const provider = await createProvider(ws.config, { notice: noticeOnStderr });
  using session = await openSession(ws.worktree, {
    config: ws.config,
    id,
    model: provider.model,
    // stderr, whatever the output format: stdout stays the answer or the JSON.
    onUnwritable: noticeOnStderr,
  });
  const prompt = resume || given ? given : promptToRetry(session);
  // Each command finds its shell (and sandbox) started while the model was thinking.
  await using _spareShells = keepSpareShells({ waitForExit: false });
  const stdout = fileWriter(Deno.stdout);
  const sink = createRunSink({
    output: options.output,
    stdout,
    config: ws.config,
    session,
    notices: ws.notices ?? [],
  });
  if (!resume && !given) {
    sink.emit({
      type: "note",
      message: `retrying the prompt that got no reply: ${preview(prompt)}`,
    });
  }

  const controller = new AbortController();
  const cancelOnSignals = handleSignals(["SIGINT", "SIGTERM"], () => controller.abort());
  let result: TurnResult;
  try {
    const agent = createRootAgent(ws, { provider, session, sink, maxRounds: options.maxRounds });
    result = resume
      ? await agent.resumeTurn(resumeState(session, resume), controller.signal)
      : await agent.runTurn(prompt, controller.signal);
  } finally {
    cancelOnSignals[Symbol.dispose]();
  }
  const pending = result.status === "parked" ? session.parked().at(-1)?.call : undefined;
  if (options.output === "json") {
    // An id is handed out only when its file exists: a read-only worktree keeps none.
    const saved = { ...result, session: session.unwritable === null ? session.id : null };
    stdout.write(JSON.stringify(pending ? { ...saved, pending } : saved) + "\n");
  } else if (pending && options.output === "text") {
    fileWriter(Deno.stderr).write(parkedNotice(session.id, pending));
  } else if (
    options.output === "text" && session.unansweredPrompt !== null && session.unwritable === null
  ) {
    noticeOnStderr(
      `the prompt is saved in session ${session.id}: ` +
        `retry it with replio run --session ${session.id}`,
    );
  }
  return EXIT_BY_STATUS[result.status];
}

/** Prompts are shown in notes up to this many characters. */
const PROMPT_PREVIEW_CHARS = 80;

/** A prompt on one line, cut for a note. */
function preview(prompt: string): string {
  const line = prompt.replace(/\s+/g, " ").trim();
  return JSON.stringify(
    line.length > PROMPT_PREVIEW_CHARS ? `${line.slice(0, PROMPT_PREVIEW_CHARS)}…` : line,
  );
}

/** The session's prompt that got no reply; a usage error when there is none to send again. */
function promptToRetry(session: Session): string {
  const prompt = session.unansweredPrompt;
  if (prompt !== null) return prompt;
  if (session.turns === 0) {
    throw new UsageError(
      `Cannot run: no prompt: pass it as an argument (replio run "…") or pipe it on stdin`,
    );
  }
  throw new UsageError(
    `Cannot continue session ${session.id} without a prompt: its last turn got a reply, so ` +
      `there is nothing to retry: pass the next prompt (replio run --session ${session.id} "…")`,
  );
}

/**
 * The whole of stdin as the prompt. A terminal or empty input is a usage error, unless
 * `mayBeEmpty` (a session that may hold a prompt to retry): then it is "".
 */
async function readPromptFromStdin(mayBeEmpty: boolean): Promise<string> {
  if (Deno.stdin.isTerminal()) {
    if (mayBeEmpty) return "";
    throw new UsageError(
      `Cannot run: no prompt: pass it as an argument (replio run "…") or pipe it on stdin`,
    );
  }
  const text = await new Response(Deno.stdin.readable).text();
  if (text.trim()) return text;
  if (mayBeEmpty) return "";
  throw new UsageError("Cannot run: the prompt on stdin is empty: pass a prompt");
}
