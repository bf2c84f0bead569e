/**
 * Where the REPL writes: wrapped and styled lines, markdown, `! …` errors, and notes that
 * arrive on their own (an MCP server failing after start-up, history that cannot be saved).
 * While a prompt is shown, whatever is written goes above it and the prompt is drawn again
 * with what was typed; a note that arrives while a turn or command writes waits for the next
 * prompt, so it never cuts into an answer.
 * @module
 */
import { MarkdownStream, reflowMarkdown } from "../ui/markdown.ts";
import { wrapText } from "../ui/text_width.ts";
import type { Styles } from "../ui/styles.ts";
import type { TextWriter } from "../ui/writer.ts";
import type { LineEditor } from "./line_editor.ts";
import type { ReplTerminal } from "./repl_host.ts";

/** The REPL's writing, in one place. */
export class ReplOutput {
  readonly styles: Styles;
  readonly #terminal: ReplTerminal;
  #editor: LineEditor | null = null;
  /** Notes that arrived while no prompt was shown, with their style. */
  #held: { text: string; style: (line: string) => string }[] = [];
  /** The writer all of the REPL's output goes through, the renderer's included. */
  readonly writer: TextWriter = { write: (text) => this.#write(text) };

  constructor(terminal: ReplTerminal, styles: Styles) {
    this.#terminal = terminal;
    this.styles = styles;
  }

  /** Output goes above this editor's prompt whenever it shows one. */
  attach(editor: LineEditor): void {
    this.#editor = editor;
  }

  /** Terminal columns; 0 when output is not a terminal. */
  get width(): number {
    return this.#terminal.width();
  }

  /** Writes `text` wrapped to the terminal (continuation lines indented), each line styled. */
  print(text: string, style: (line: string) => string = (line) => line, indent = "  "): void {
    const lines = text.split("\n").flatMap((line) => wrapText(line, this.width, indent));
    this.#write(lines.map((line) => style(line) + "\n").join(""));
  }

  /** Writes markdown reflowed and rendered to the terminal width. */
  printMarkdown(text: string): void {
    const markdown = new MarkdownStream({ styles: this.styles, width: () => this.width });
    this.#write(markdown.push(reflowMarkdown(text)) + markdown.end());
  }

  /** Writes a `! …` error line. */
  printError(message: string): void {
    this.print(`! ${message}`, this.styles.red);
  }

  /**
   * Prints `text` as {@link print} does, but never into a turn's output: above the prompt at
   * once when one is shown, else before the next prompt.
   */
  printLater(text: string, style: (line: string) => string): void {
    this.#held.push({ text, style });
    if (this.#editor?.isPromptShown) this.showHeld();
  }

  /** A warning that arrived on its own (`warning: …`), printed as {@link printLater} does. */
  notice(message: string): void {
    this.printLater(`warning: ${message}`, this.styles.yellow);
  }

  /** Prints what was held back; the REPL calls it before each prompt. */
  showHeld(): void {
    const held = this.#held;
    this.#held = [];
    for (const { text, style } of held) this.print(text, style);
  }

  #write(text: string): void {
    if (!text) return;
    const editor = this.#editor;
    if (editor?.isPromptShown) editor.writeAbove(text);
    else this.#terminal.out.write(text);
  }
}
