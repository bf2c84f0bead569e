/**
 * The REPL's input loop: reads a message or a slash command at the prompt and runs it, until
 * the person quits. Ctrl-C at an empty prompt says how to quit; a second one quits.
 * @module
 */
import { runCommand } from "./commands.ts";
import type { ReplContext } from "./context.ts";
import { describeError } from "./describe_error.ts";
import { collectWhenIdle } from "../engine/idle_gc.ts";
import type { LineEditor } from "./line_editor.ts";
import { parseSlash } from "./slash.ts";

/** The REPL as its input loop drives it. */
export interface LoopedRepl extends ReplContext {
  /** /exit was run. */
  readonly isExitRequested: boolean;
  /** The prompt: `> `, with the mode in front unless it is `default`. */
  promptText(): string;
  /** Called before each prompt is drawn (held warnings are shown then). */
  beforePrompt(): void;
}

/**
 * Reads and runs input until Ctrl-D, a second Ctrl-C, /exit or the end of input; `first` (the
 * prompt given on the command line, `replio "explain a.ts"`) runs first, as if typed.
 */
export async function runInputLoop(
  repl: LoopedRepl,
  editor: LineEditor,
  first?: string,
): Promise<void> {
  if (first?.trim()) {
    repl.beforePrompt();
    repl.print(repl.promptText() + first);
    await runEntry(repl, first);
  }
  let quitArmed = false;
  while (!repl.isExitRequested) {
    repl.beforePrompt();
    const cancelCollection = collectWhenIdle();
    const input = await editor.read(repl.promptText(), repl.styles.dim("… "));
    cancelCollection();
    if (input.kind === "eof") break;
    if (input.kind === "interrupt") {
      if (quitArmed) break;
      quitArmed = true;
      repl.print("(To quit, press Ctrl-C again or Ctrl-D, or type /exit)", repl.styles.dim);
      continue;
    }
    quitArmed = false;
    if (!input.text.trim()) continue;
    await runEntry(repl, input.text);
  }
}

/** Runs one message or slash command. */
async function runEntry(repl: LoopedRepl, text: string): Promise<void> {
  const slash = parseSlash(text);
  try {
    if (slash) await runCommand(repl, slash);
    else await repl.sendMessage(text);
  } catch (error) {
    // A failed command or a bug in the engine must not end the REPL and lose the prompt.
    repl.sink.settle();
    repl.printError(describeError(error));
  }
}
