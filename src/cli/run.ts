/**
 * `replio run`: one headless turn (DESIGN.md §4). The prompt comes from the arguments or, when
 * there are none, from stdin; stdin is never read again and no person is ever waited on.
 * SIGINT or SIGTERM cancels the turn (stream and tools aborted, partial output saved, exit 130).
 * @module
 */
import { createProvider } from "../providers/mod.ts";
import { noticeOnStderr } from "./notice.ts";
import { isSessionId, openSession } from "../session/mod.ts";
import type { TurnResult } from "../engine/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import type { Sink, TurnStatus } from "../ui/events.ts";
import { HeadlessTextSink } from "../ui/headless_text.ts";
import { StreamJsonSink } from "../ui/stream_json.ts";
import { createStyles, wantsColor } from "../ui/styles.ts";
import { fileWriter, type TextWriter } from "../ui/writer.ts";
import type { Config } from "../config/mod.ts";
import { chooseSession } from "./choose_session.ts";
import { EXIT, UsageError } from "./errors.ts";
import { createRootAgent } from "./start_agent.ts";
import { resumeState } from "../engine/mod.ts";
import { parkedNotice, parkedSession } from "./parked.ts";
import { openWorkspace } from "./workspace.ts";
import { keepSpareShells } from "../plugins/spare_shell.ts";
import { probeBwrapSoon } from "../plugins/sandbox_bwrap.ts";

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

/**
 * The sink, which also starts the bubblewrap check once the model asks for its first tool: the
 * first command then finds the answer ready, and the check (a bwrap process) stays off the path
 * to the first request.
 */
function probingOnFirstCall(sink: Sink, config: Config): Sink {
  let probing = false;
  return {
    ...(sink.showsPreviews === undefined ? {} : { showsPreviews: sink.showsPreviews }),
    emit(event) {
      if (!probing && event.type === "tool_call") {
        probing = true;
        void probeBwrapSoon(config);
      }
      sink.emit(event);
    },
    confirm: (request) => sink.confirm(request),
    ask: (request) => sink.ask(request),
  };
}

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
  const prompt = options.resume !== undefined
    ? ""
    : promptArg.trim()
    ? promptArg
    : await readPromptFromStdin();
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
  // Each command finds its shell (and sandbox) started while the model was thinking.
  await using _spareShells = keepSpareShells({ waitForExit: false });
  const isNew = session.turns === 0;
  const stdout = fileWriter(Deno.stdout);
  const sink = probingOnFirstCall(createSink(options.output, stdout, ws.config), ws.config);
  sink.emit({ type: "session", id: session.id });
  for (const notice of ws.notices ?? []) sink.emit({ type: "note", message: `warning: ${notice}` });

  const controller = new AbortController();
  const cancel = () => controller.abort();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  for (const name of signals) Deno.addSignalListener(name, cancel);
  let result: TurnResult;
  try {
    const agent = createRootAgent(ws, { provider, session, sink, maxRounds: options.maxRounds });
    result = resume
      ? await agent.resumeTurn(resumeState(session, resume), controller.signal)
      : await agent.runTurn(prompt, controller.signal);
  } finally {
    for (const name of signals) Deno.removeSignalListener(name, cancel);
  }
  // A first turn that failed before the model said anything leaves nothing worth resuming.
  if (isNew && !session.answered) session.discard();
  const pending = result.status === "parked" ? session.parked().at(-1)?.call : undefined;
  if (options.output === "json") {
    stdout.write(JSON.stringify(pending ? { ...result, pending } : result) + "\n");
  } else if (pending && options.output === "text") {
    fileWriter(Deno.stderr).write(parkedNotice(session.id, pending));
  }
  return EXIT_BY_STATUS[result.status];
}

function createSink(output: RunOptions["output"], stdout: TextWriter, config: Config): Sink {
  if (output === "stream-json") return new StreamJsonSink(stdout);
  if (output === "json") return new CollectingSink();
  return new HeadlessTextSink(
    stdout,
    fileWriter(Deno.stderr),
    createStyles(wantsColor(Deno.stderr)),
    {
      glyphLines: config.get("glyph_lines"),
      glyphParams: config.get("glyph_params"),
      showErrors: config.get("show_errors"),
      showNotes: config.get("show_notes"),
    },
  );
}

/** The whole of stdin as the prompt; a terminal or empty input is a usage error. */
async function readPromptFromStdin(): Promise<string> {
  if (Deno.stdin.isTerminal()) {
    throw new UsageError(
      `Cannot run: no prompt: pass it as an argument (replio run "…") or pipe it on stdin`,
    );
  }
  const text = await new Response(Deno.stdin.readable).text();
  if (!text.trim()) throw new UsageError("Cannot run: the prompt on stdin is empty: pass a prompt");
  return text;
}
