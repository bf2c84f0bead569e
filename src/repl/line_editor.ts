/**
 * The line editor: node:readline with history, Tab completion and multi-line input in a
 * terminal, or a plain line reader (no prompt, no escape codes) when stdin is not a terminal.
 * Terminal keys pass through an {@link InputFilter} first, so pastes arrive whole and keys
 * typed while a turn runs wait for the prompt (Ctrl-C excepted: it cancels the turn). Output
 * that arrives while a prompt is shown goes above it ({@link LineEditor.writeAbove}), and a
 * terminal resize redraws the prompt only while one is shown ({@link PromptOutput}).
 * @module
 */
import process from "node:process";
import * as readline from "node:readline";
import { PassThrough } from "node:stream";
import { InputAssembler } from "./input_assembler.ts";
import { readKey } from "./key_prompt.ts";
import { DISABLE_BRACKETED_PASTE, ENABLE_BRACKETED_PASTE, InputFilter } from "./input_filter.ts";
import { PasteStore } from "./paste_store.ts";
import { PromptOutput } from "./prompt_output.ts";
import type { PromptAnswer } from "../ui/terminal.ts";

/** What {@link LineEditor.read} returns: a message, Ctrl-C at an empty prompt, or the end. */
export type ReadResult =
  | { kind: "message"; text: string }
  | { kind: "interrupt" }
  | { kind: "eof" };

/** Ctrl-D: on an empty line readline would close for good; the editor decides first. */
const CTRL_D = "\x04";
const ESC = "\x1b";
/** What terminals send for Shift+Tab (back-tab). */
const SHIFT_TAB = "\x1b[Z";

/** Options of {@link LineEditor}. */
export interface LineEditorOptions {
  /** A terminal gets the full editor; anything else is read as plain lines. */
  terminal: boolean;
  /** Earlier entries, oldest first. */
  history: readonly string[];
  /** Entries kept in memory (config history_size); 0 keeps none. */
  historySize: number;
  /** Completions for the text left of the cursor. */
  complete(line: string): Promise<[string[], string]>;
  /** Called with each message entered, to persist it. */
  onEntry(entry: string): void;
  /** Shift+Tab at the main prompt (the REPL cycles the mode). */
  onShiftTab?(): void;
}

/**
 * node:readline's Interface with three members its type declarations leave out: the history
 * array (newest first), `clearLine()`, which ends the line and empties the buffer, and
 * `prevRows`, the row of the cursor below the prompt's first row at the last redraw (where a
 * redraw moves up to). All are in Node's and Deno's implementations alike.
 */
type EditorInterface = readline.Interface & {
  history: string[];
  clearLine(): void;
  prevRows: number;
};

/** Who waits for the next typed line: null when input ended (or Ctrl-D at a question). */
type Waiter = (line: string | null | typeof INTERRUPTED) => void;

/** Ctrl-C at a question. */
const INTERRUPTED = Symbol("interrupted");

/** Reads messages and answers from the person. */
export class LineEditor {
  readonly #options: LineEditorOptions;
  readonly #rl: EditorInterface;
  readonly #pastes = new PasteStore();
  readonly #assembler = new InputAssembler();
  readonly #filter: InputFilter | null;
  /** readline's output in a terminal; null for plain lines. */
  readonly #output: PromptOutput | null;
  readonly #lines: string[] = [];
  #waiter: Waiter | null = null;
  #closed = false;
  /** Set while a picker reads raw keys: they bypass readline. */
  #keyReader: ((keys: string) => void) | null = null;
  /** The main prompt of the current read, shown again when a continuation is dropped. */
  #promptText = "";
  /** Set while reading a message, so Ctrl-C there can end the read. */
  #reading: ((result: ReadResult) => void) | null = null;
  /** Set while a turn runs: Ctrl-C cancels it. */
  #onInterrupt: (() => void) | null = null;
  readonly #onSignal = () => this.#interrupt();
  readonly #onData = (chunk: string) => this.#filter?.write(chunk);
  readonly #onEnd = () => this.#rl.close();

  constructor(options: LineEditorOptions) {
    this.#options = options;
    if (options.terminal) {
      const keys = new PassThrough({ encoding: "utf8" });
      // readline puts its input into raw mode; ours is a pipe in front of the real stdin.
      Object.assign(keys, {
        isTTY: true,
        setRawMode: (mode: boolean) => {
          process.stdin.setRawMode(mode);
          return keys;
        },
      });
      this.#filter = new InputFilter((text) => this.#forwardKeys(keys, text), this.#pastes);
      this.#output = new PromptOutput();
      process.stdin.setEncoding("utf8");
      process.stdin.on("data", this.#onData);
      process.stdin.on("end", this.#onEnd);
      this.#rl = readline.createInterface({
        input: keys,
        output: this.#output as unknown as NodeJS.WritableStream,
        terminal: true,
        // Entries are added here, whole messages only; readline's own adding is off.
        historySize: 0,
        completer: (
          line: string,
          callback: (error: Error | null, result: [string[], string]) => void,
        ) => {
          options.complete(line).then(
            (result) => callback(null, result),
            (error) => callback(error, [[], line]),
          );
        },
      }) as EditorInterface;
      this.#rl.history = options.history.slice(-options.historySize).map((entry) =>
        this.#pastes.display(entry)
      ).reverse();
      process.stdout.write(ENABLE_BRACKETED_PASTE);
      this.#rl.on("SIGINT", () => this.#interrupt());
    } else {
      this.#filter = null;
      this.#output = null;
      this.#rl = readline.createInterface({
        input: process.stdin,
        terminal: false,
      }) as EditorInterface;
    }
    this.#rl.on("line", (line: string) => {
      // readline ended the line (Enter): what follows is output, not a prompt.
      this.#setPromptShown(false);
      this.#deliver(line);
    });
    this.#rl.on("close", () => {
      this.#closed = true;
      this.#deliver(null);
    });
    Deno.addSignalListener("SIGINT", this.#onSignal);
  }

  /** Whether this is the full terminal editor. */
  get isTerminal(): boolean {
    return this.#filter !== null;
  }

  /** Whether a prompt (a message's or a question's) is on screen, waiting for a line. */
  get isPromptShown(): boolean {
    return this.#output?.isPromptShown ?? false;
  }

  /**
   * Writes `text` above the prompt shown now, then draws the prompt again with what was typed
   * and the cursor where it was: output that arrives on its own (a server failing after
   * start-up) never lands on the prompt line. Without a prompt shown it is written as is.
   */
  writeAbove(text: string): void {
    const output = this.#output;
    if (!output?.isPromptShown) {
      process.stdout.write(text);
      return;
    }
    // Up to the prompt's first row and clear from there: the text takes the prompt's place.
    const rows = this.#rl.getCursorPos().rows;
    output.write(`${rows > 0 ? `\x1b[${rows}A` : ""}\r\x1b[J`);
    output.write(text.endsWith("\n") ? text : `${text}\n`);
    this.#rl.prevRows = 0;
    this.#rl.prompt(true);
  }

  /**
   * Changes the main prompt of the current read (the mode changed); what is written above it
   * next (the note saying so) draws it again.
   */
  setPrompt(prompt: string): void {
    this.#promptText = prompt;
    if (!this.#reading || this.#assembler.continuing || !this.isTerminal) return;
    this.#rl.setPrompt(prompt);
  }

  /** Reads one message: continuation lines and pastes joined, placeholders expanded. */
  read(prompt: string, continuation: string): Promise<ReadResult> {
    return new Promise((resolve) => {
      this.#reading = resolve;
      this.#promptText = prompt;
      const next = (): void => {
        this.#prompt(this.#assembler.continuing ? continuation : prompt);
        // After the prompt, which puts the cursor at the line start: typed-ahead keys follow it.
        this.#filter?.release();
        this.#nextLine((line) => {
          if (this.#reading !== resolve) return;
          if (line === null || line === INTERRUPTED) {
            this.#reading = null;
            this.#assembler.reset();
            resolve({ kind: "eof" });
            return;
          }
          const assembled = this.#assembler.feed(this.#pastes.expand(line));
          if (!assembled.done) return next();
          this.#reading = null;
          this.#remember(assembled.text);
          resolve({ kind: "message", text: assembled.text });
        });
      };
      next();
    });
  }

  /** Shows `prompt` and reads one answer line, or Ctrl-C (`interrupt`) or Ctrl-D (`eof`). */
  question(prompt: string, initial = ""): Promise<PromptAnswer> {
    const onInterrupt = this.#onInterrupt;
    this.#onInterrupt = null;
    // Keys typed ahead during the turn are meant for the next message, not for this answer.
    this.#filter?.passKeys();
    return new Promise((resolve) => {
      this.#prompt(prompt);
      if (initial && this.isTerminal) this.#rl.write(initial);
      this.#nextLine((line) => {
        this.#onInterrupt = onInterrupt;
        if (onInterrupt) this.#filter?.hold(onInterrupt);
        if (line === INTERRUPTED) resolve({ kind: "interrupt" });
        else if (line === null) resolve({ kind: "eof" });
        else resolve({ kind: "line", text: this.#pastes.expand(line) });
      });
    });
  }

  /**
   * Hands raw key chunks (arrows as escape sequences) to `onKeys` until it returns true; a
   * terminal only (the session and model pickers, the pager, a confirm prompt's key). During a
   * turn its Ctrl-C is one of those keys; keys typed ahead still wait for the next prompt.
   */
  readKeys(onKeys: (keys: string) => boolean): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    const onInterrupt = this.#onInterrupt;
    this.#onInterrupt = null;
    this.#filter?.passKeys();
    this.#keyReader = (keys) => {
      if (!onKeys(keys)) return;
      this.#keyReader = null;
      this.#onInterrupt = onInterrupt;
      if (onInterrupt) this.#filter?.hold(onInterrupt);
      resolve();
    };
    return promise;
  }

  /** One key of `accepted` at `prompt` (Enter gives ""); without a terminal, one line. */
  key(prompt: string, accepted: string): Promise<PromptAnswer> {
    return readKey(this, prompt, accepted);
  }

  /** Writes `text` where the prompt is drawn (the terminal). */
  write(text: string): void {
    process.stdout.write(text);
  }

  /** A turn starts: Ctrl-C calls `onInterrupt` and other keys wait for the next prompt. */
  hold(onInterrupt: () => void): void {
    this.#onInterrupt = onInterrupt;
    this.#filter?.hold(onInterrupt);
  }

  /** The turn is over: Ctrl-C goes back to the prompt; held keys follow the next prompt. */
  release(): void {
    this.#onInterrupt = null;
  }

  /** Restores the terminal and stops reading. */
  close(): void {
    Deno.removeSignalListener("SIGINT", this.#onSignal);
    this.#setPromptShown(false);
    this.#output?.close();
    if (this.#filter) {
      process.stdout.write(DISABLE_BRACKETED_PASTE);
      process.stdin.off("data", this.#onData);
      process.stdin.off("end", this.#onEnd);
    }
    this.#rl.close();
    // Without this the pending read of stdin keeps the process alive after the REPL ends.
    process.stdin.pause();
  }

  /** Ctrl-C: cancels a turn, interrupts a question, or clears or ends the prompt. */
  #interrupt(): void {
    if (this.#onInterrupt) {
      this.#onInterrupt();
      return;
    }
    if (this.#waiter && !this.#reading) {
      // A question: the answer is "cancel".
      if (this.isTerminal) this.#endLine();
      this.#deliver(INTERRUPTED);
      return;
    }
    const reading = this.#reading;
    if (!reading) return;
    const hadText = this.#rl.line.length > 0 || this.#assembler.continuing;
    this.#assembler.reset();
    if (this.isTerminal) this.#endLine();
    if (hadText) {
      this.#prompt(this.#rl.getPrompt());
      return;
    }
    this.#reading = null;
    this.#waiter = null;
    reading({ kind: "interrupt" });
  }

  /**
   * Hands typed keys to readline, deciding Ctrl-D on an empty line first: at a question it
   * answers "end of input" for that question only, at a continuation prompt it drops the
   * half-typed message; only at an empty main prompt does it reach readline and end the REPL.
   */
  #forwardKeys(keys: PassThrough, text: string): void {
    if (this.#keyReader) return this.#keyReader(text);
    if (text.includes(SHIFT_TAB)) {
      // At the main prompt only: a continuation or a question keeps its own meaning.
      const parts = text.split(SHIFT_TAB);
      parts.forEach((part, i) => {
        if (i > 0 && this.#reading && !this.#assembler.continuing) this.#options.onShiftTab?.();
        if (part) this.#forwardKeys(keys, part);
      });
      return;
    }
    // Esc at a question (y/N, ask) interrupts the turn it belongs to, as Ctrl-C does.
    if (text === ESC && this.#waiter && !this.#reading) return this.#interrupt();
    text.split(CTRL_D).forEach((part, i) => {
      if (i > 0 && !this.#endOfInput()) keys.write(CTRL_D);
      if (part) keys.write(part);
    });
  }

  /** Ctrl-D on an empty line at a question or a continuation; false when readline should have it. */
  #endOfInput(): boolean {
    if (this.#rl.line.length > 0) return false;
    if (this.#waiter && !this.#reading) {
      this.#endLine();
      this.#deliver(null, { keepOpen: true });
      return true;
    }
    if (this.#reading && this.#assembler.continuing) {
      this.#assembler.reset();
      this.#endLine();
      this.#prompt(this.#promptText);
      return true;
    }
    return false;
  }

  #prompt(text: string): void {
    if (!this.isTerminal || this.#closed) return;
    this.#rl.setPrompt(text);
    this.#rl.prompt();
    this.#setPromptShown(true);
  }

  /** Ends the prompt's line and empties it (Ctrl-C, Ctrl-D): the prompt is no longer shown. */
  #endLine(): void {
    this.#rl.clearLine();
    this.#setPromptShown(false);
  }

  #setPromptShown(shown: boolean): void {
    if (this.#output) this.#output.isPromptShown = shown;
  }

  /** Hands the next typed line to `waiter` (queued lines first). */
  #nextLine(waiter: Waiter): void {
    const queued = this.#lines.shift();
    if (queued !== undefined) {
      // Typed ahead: the prompt drawn for it is answered already.
      this.#setPromptShown(false);
      return waiter(queued);
    }
    if (this.#closed) return waiter(null);
    this.#waiter = waiter;
  }

  /**
   * A line arrived. null: input ended, or (`keepOpen`) Ctrl-D ended one question only;
   * INTERRUPTED: Ctrl-C at a question.
   */
  #deliver(line: string | null | typeof INTERRUPTED, options: { keepOpen?: boolean } = {}): void {
    const waiter = this.#waiter;
    if (!waiter) {
      if (typeof line === "string") this.#lines.push(line);
      return;
    }
    this.#waiter = null;
    waiter(line);
    if (line === null && !options.keepOpen) this.#closed = true;
  }

  /** Adds a message to the in-memory history (newest first) and hands it on to persist. */
  #remember(text: string): void {
    if (!text.trim() || this.#options.historySize === 0) return;
    if (this.isTerminal) {
      const entry = this.#pastes.display(text);
      const history = this.#rl.history.filter((e) => e !== entry);
      history.unshift(entry);
      this.#rl.history = history.slice(0, this.#options.historySize);
    }
    this.#options.onEntry(text);
  }
}
