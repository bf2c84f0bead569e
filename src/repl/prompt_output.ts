/**
 * readline's output: the terminal, except that a resize reaches readline only while a prompt
 * is shown. readline redraws its prompt line on every resize: it moves up to where the prompt
 * last started, clears the screen below and writes the prompt again. While a turn streams there
 * is no prompt, and that redraw would wipe the answer's lines and leave a stray `> ` in them.
 * @module
 */
import { EventEmitter } from "node:events";
import process from "node:process";

/**
 * The stream readline writes to. Writes go straight to stdout, in order with the REPL's own
 * writes (a buffering stream could reorder them); `columns` is read at each use, as readline
 * expects of a terminal.
 */
export class PromptOutput extends EventEmitter {
  readonly isTTY = true;
  /** Whether the line editor shows a prompt now: only then is a resize passed on. */
  isPromptShown = false;
  readonly #onResize = () => {
    if (this.isPromptShown) this.emit("resize");
  };

  constructor() {
    super();
    process.stdout.on("resize", this.#onResize);
  }

  get columns(): number {
    return process.stdout.columns;
  }

  get rows(): number {
    return process.stdout.rows;
  }

  write(text: string, callback?: () => void): boolean {
    process.stdout.write(text);
    callback?.();
    return true;
  }

  /** Stops listening to the terminal. */
  close(): void {
    process.stdout.off("resize", this.#onResize);
  }
}
