/**
 * The sink `replio run` reports to: the renderer of `--output`, which also announces the session
 * once its file exists and starts the bubblewrap check at the model's first tool call.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { Session } from "../session/mod.ts";
import { CollectingSink } from "../ui/collecting_sink.ts";
import type { Sink, TurnEvent } from "../ui/events.ts";
import { HeadlessTextSink } from "../ui/headless_text.ts";
import { StreamJsonSink } from "../ui/stream_json.ts";
import { createStyles, wantsColor } from "../ui/styles.ts";
import { fileWriter, type TextWriter } from "../ui/writer.ts";
import { probeBwrapSoon } from "../plugins/sandbox_bwrap.ts";

/** What {@link createRunSink} builds on. */
export interface RunSinkOptions {
  output: "text" | "json" | "stream-json";
  stdout: TextWriter;
  config: Config;
  session: Session;
  /** Setup warnings, sent as notes right after the session. */
  notices: readonly string[];
}

/**
 * The renderer for `output`, wrapped: the `session` event (then the notices) goes out before the
 * engine's first event, when the turn has already written the session file, and not at all when
 * the file cannot be written (a read-only worktree): no id is handed out that names no file.
 */
export function createRunSink(options: RunSinkOptions): Sink {
  const { session, config } = options;
  const sink = renderer(options.output, options.stdout, config);
  let isStarted = false;
  let isProbing = false;
  const emit = (event: TurnEvent) => {
    if (!isStarted) {
      isStarted = true;
      if (session.unwritable === null) sink.emit({ type: "session", id: session.id });
      for (const notice of options.notices) {
        sink.emit({ type: "note", message: `warning: ${notice}` });
      }
    }
    // The first command then finds the answer ready; the check (a bwrap process) stays off the
    // path to the first request.
    if (!isProbing && event.type === "tool_call") {
      isProbing = true;
      void probeBwrapSoon(config);
    }
    sink.emit(event);
  };
  return {
    ...(sink.showsPreviews === undefined ? {} : { showsPreviews: sink.showsPreviews }),
    emit,
    confirm: (request) => sink.confirm(request),
    ask: (request) => sink.ask(request),
  };
}

function renderer(output: RunSinkOptions["output"], stdout: TextWriter, config: Config): Sink {
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
