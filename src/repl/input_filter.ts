/**
 * Keyboard bytes between the terminal and node:readline. It recognises bracketed pastes (and
 * a chunk holding several lines, from terminals without them) and hands multi-line pastes to
 * the editor as a placeholder. While a turn runs it keeps keys from the editor: Ctrl-C or Esc
 * cancels the turn, anything else is held and typed once the prompt returns.
 * @module
 */
import type { PasteStore } from "./paste_store.ts";

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";
const CTRL_C = "\x03";
const ESC = "\x1b";

/** Turns bracketed paste on in a terminal that supports it. */
export const ENABLE_BRACKETED_PASTE = "\x1b[?2004h";
/** Turns it off again, when the REPL exits. */
export const DISABLE_BRACKETED_PASTE = "\x1b[?2004l";

/** Filters terminal input on its way to the line editor. */
export class InputFilter {
  readonly #forward: (text: string) => void;
  readonly #pastes: PasteStore;
  /** Set while a turn runs: the editor must not see keys. */
  #onInterrupt: (() => void) | null = null;
  #held = "";
  /** Text of a bracketed paste still arriving; null outside one. */
  #paste: string | null = null;
  /** A chunk that ended inside an escape sequence that may be a paste marker. */
  #partial = "";

  constructor(forward: (text: string) => void, pastes: PasteStore) {
    this.#forward = forward;
    this.#pastes = pastes;
  }

  /** While a turn runs: Ctrl-C calls `onInterrupt`, other keys wait for {@link release}. */
  hold(onInterrupt: () => void): void {
    this.#onInterrupt = onInterrupt;
  }

  /** A question during the turn: new keys go to the editor, held ones wait for the prompt. */
  passKeys(): void {
    this.#onInterrupt = null;
  }

  /** The prompt is back: keys go to the editor again, held ones first. */
  release(): void {
    this.#onInterrupt = null;
    const held = this.#held;
    this.#held = "";
    if (held) this.write(held);
  }

  /** Takes one chunk read from the terminal. */
  write(chunk: string): void {
    // A lone Esc is a key press (terminals send a paste marker whole), not a marker's start.
    if (chunk === ESC && !this.#partial && this.#paste === null && !this.#onInterrupt) {
      this.#forward(chunk);
      return;
    }
    let text = this.#partial + chunk;
    this.#partial = "";
    if (this.#onInterrupt && this.#paste === null) {
      // Esc alone (not the start of an arrow key's sequence) interrupts like Ctrl-C.
      if (text.includes(CTRL_C) || text === ESC) {
        this.#onInterrupt();
        if (text === ESC) return;
      }
      this.#held += text.replaceAll(CTRL_C, "");
      return;
    }
    while (text) {
      if (this.#paste !== null) {
        const end = text.indexOf(PASTE_END);
        if (end < 0) {
          const keep = partialMarkerLength(text, PASTE_END);
          this.#paste += text.slice(0, text.length - keep);
          this.#partial = text.slice(text.length - keep);
          return;
        }
        this.#paste += text.slice(0, end);
        text = text.slice(end + PASTE_END.length);
        this.#forward(this.#pasted(this.#paste));
        this.#paste = null;
        continue;
      }
      const start = text.indexOf(PASTE_START);
      if (start < 0) {
        const keep = partialMarkerLength(text, PASTE_START);
        this.#typed(text.slice(0, text.length - keep));
        this.#partial = text.slice(text.length - keep);
        return;
      }
      this.#typed(text.slice(0, start));
      text = text.slice(start + PASTE_START.length);
      this.#paste = "";
    }
  }

  /**
   * Typed keys; several lines of text in one chunk can only be a paste the terminal did not
   * mark. Control keys in the chunk (Ctrl-C, Ctrl-D, an arrow) mean a person typed it: Enter
   * then Ctrl-C, arriving together while replio was busy, are two keys, not a pasted line.
   */
  #typed(text: string): void {
    if (!text) return;
    const body = text.replace(/\r?\n$|\r$/, "");
    // deno-lint-ignore no-control-regex
    if (/[\r\n]/.test(body) && !/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(body)) {
      this.#forward(this.#pasted(body) + text.slice(body.length));
      return;
    }
    this.#forward(text);
  }

  /** Multi-line (or tabbed) paste becomes a placeholder; one line is typed as it is. */
  #pasted(text: string): string {
    const normal = text.replace(/\r\n?/g, "\n").replace(/\n$/, "");
    return /[\n\t]/.test(normal) ? this.#pastes.add(normal) : normal;
  }
}

/** How many characters at the end of `text` could be the start of `marker`. */
function partialMarkerLength(text: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}
