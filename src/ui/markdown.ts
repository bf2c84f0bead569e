/**
 * Light markdown for streamed answers: headings, bold, italic, inline code, lists, quotes,
 * rules and fenced code with highlighting, word-wrapped to the terminal width. Text arrives in
 * arbitrary pieces; a word is written only once it is complete, so no word is ever split
 * across lines. With colour off the output is the source text itself, only wrapped.
 * @module
 */
import { highlightCode } from "./code_highlight.ts";
import type { Styles } from "./styles.ts";
import { displayWidth, MIN_WIDTH, sliceWidth } from "./text_width.ts";

/** What the renderer needs: styles and the current width (read per line: terminals resize). */
export interface MarkdownOptions {
  styles: Styles;
  width: () => number;
}

/** How a line renders, decided from its first word. */
type LineKind = "paragraph" | "heading" | "item" | "quote" | "raw";

/** Inline emphasis state, carried across words of a line. */
interface Inline {
  bold: boolean;
  italic: boolean;
  code: boolean;
}

/**
 * Renders a markdown stream: {@link MarkdownStream.push} each delta and write what it returns;
 * {@link MarkdownStream.end} finishes the last line.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createStyles } from "./styles.ts";
 * const md = new MarkdownStream({ styles: createStyles(false), width: () => 80 });
 * assert.equal(md.push("- one **two**\n") + md.end(), "- one **two**\n");
 * ```
 */
export class MarkdownStream {
  readonly #styles: Styles;
  readonly #width: () => number;
  /** Text received but not yet written: an incomplete word or an undecided line start. */
  #pending = "";
  /** Null until the current line's first word is known. */
  #kind: LineKind | null = null;
  /** Visible column of the cursor; 0 at a line start. */
  #column = 0;
  /** Spaces that continue the current line after a wrap (hanging indent of list items). */
  #indent = "";
  /** Whitespace between the last written word and the next one, dropped at a wrap. */
  #gap = "";
  #inline: Inline = { bold: false, italic: false, code: false };
  /** The open fence (```` ``` ```` or `~~~`) and its language, while inside a code block. */
  #fence: { marker: string; lang: string } | null = null;

  constructor(options: MarkdownOptions) {
    this.#styles = options.styles;
    this.#width = options.width;
  }

  /** Whether the cursor is at the start of a line (nothing written on it yet). */
  get atLineStart(): boolean {
    return this.#column === 0 && this.#pending === "" && this.#gap === "";
  }

  /** Takes the next piece of the answer; returns the text that is ready to write. */
  push(delta: string): string {
    // Tabs become spaces so column counting matches what the terminal shows.
    this.#pending += delta.replace(/\r\n?/g, "\n").replace(/\t/g, "    ");
    let out = "";
    for (;;) {
      const step = this.#step(false);
      if (step === null) return out;
      out += step;
    }
  }

  /** Writes whatever is pending and ends the current line; the stream can go on afterwards. */
  end(): string {
    let out = "";
    for (;;) {
      const step = this.#step(true);
      if (step === null) break;
      out += step;
    }
    if (this.#column > 0) out += "\n";
    this.#resetLine();
    return out;
  }

  /** Renders one unit (a line start, a word, a line end); null when more text is needed. */
  #step(final: boolean): string | null {
    if (this.#pending === "") return null;
    if (this.#fence || this.#kind === "raw") return this.#wholeLine(final);
    if (this.#kind === null) return this.#lineStart(final);
    return this.#word(final);
  }

  /** Decides the line's kind once its first word is complete. */
  #lineStart(final: boolean): string | null {
    const blank = /^[ ]*\n/.exec(this.#pending);
    if (blank) {
      this.#pending = this.#pending.slice(blank[0].length);
      this.#resetLine();
      return "\n";
    }
    const match = /^( *)(\S+)(\s|$)/.exec(this.#pending);
    if (!match) {
      // Only spaces so far: wait, or drop them at the end of the stream.
      if (final) this.#pending = "";
      return null;
    }
    if (match[3] === "" && !final) return null;
    const [, lead = "", first = "", after = ""] = match;
    const restOfLine = this.#pending.slice(lead.length + first.length);
    if (/^(```|~~~)/.test(first) || first.startsWith("|")) {
      this.#kind = "raw";
      return "";
    }
    const isRule = /^(-{3,}|\*{3,}|_{3,})$/.test(first) && (after === "\n" || after === "");
    if (isRule) {
      this.#pending = restOfLine.replace(/^\n/, "");
      const rule = this.#styles.dim("─".repeat(Math.min(this.#safeWidth(), 40)));
      this.#resetLine();
      return rule + "\n";
    }
    const s = this.#styles;
    let prefix: string;
    if (/^#{1,6}$/.test(first)) {
      this.#kind = "heading";
      prefix = lead + s.dim(first) + " ";
      this.#inline.bold = true;
    } else if (/^[-*+]$/.test(first)) {
      this.#kind = "item";
      prefix = lead + s.cyan(first) + " ";
    } else if (/^\d{1,3}[.)]$/.test(first)) {
      this.#kind = "item";
      prefix = lead + s.cyan(first) + " ";
    } else if (first === ">") {
      this.#kind = "quote";
      prefix = lead + s.dim("│") + " ";
    } else {
      this.#kind = "paragraph";
      this.#indent = lead;
      this.#pending = this.#pending.slice(lead.length);
      this.#column = lead.length;
      return lead;
    }
    // Marker and one space are consumed; further spaces are the gap before the first word.
    this.#pending = restOfLine.slice(after === " " ? 1 : 0);
    const shown = lead.length + first.length + 1;
    this.#indent = this.#kind === "quote" ? lead + "│ " : " ".repeat(shown);
    this.#column = shown;
    return prefix;
  }

  /** Writes the next complete word (with the gap before it), or ends the line. */
  #word(final: boolean): string | null {
    const gap = /^[ \t]*/.exec(this.#pending)![0];
    if (gap) {
      this.#gap += gap;
      this.#pending = this.#pending.slice(gap.length);
    }
    if (this.#pending.startsWith("\n")) {
      this.#pending = this.#pending.slice(1);
      this.#resetLine();
      return "\n";
    }
    const word = /^[^\s]+/.exec(this.#pending)?.[0];
    if (word === undefined) return null;
    if (word.length === this.#pending.length && !final) return null;
    this.#pending = this.#pending.slice(word.length);
    return this.#placeWord(word);
  }

  /** Lays a word out on the line, wrapping before it when it would not fit. */
  #placeWord(word: string): string {
    const pieces = this.#styleWord(word);
    const visible = pieces.reduce((n, p) => n + displayWidth(p.text), 0);
    const width = this.#safeWidth();
    let out = "";
    const gapWidth = displayWidth(this.#gap);
    if (this.#column > displayWidth(this.#indent) && this.#column + gapWidth + visible > width) {
      out += "\n" + this.#continuation();
      this.#column = displayWidth(this.#indent);
    } else {
      out += this.#gap;
      this.#column += gapWidth;
    }
    this.#gap = "";
    for (const piece of pieces) {
      // A word longer than the line is cut hard: nothing else can make it fit.
      let text = piece.text;
      while (this.#column + displayWidth(text) > width && width - this.#column > 0) {
        const room = width - this.#column;
        const head = sliceWidth(text, room);
        out += piece.style(head) + "\n" + this.#continuation();
        this.#column = displayWidth(this.#indent);
        text = text.slice(head.length);
        if (head.length === 0) break;
      }
      out += piece.style(text);
      this.#column += displayWidth(text);
    }
    return out;
  }

  /** The indent written after a wrap: quotes repeat their bar. */
  #continuation(): string {
    return this.#kind === "quote" ? this.#indent.replace("│", this.#styles.dim("│")) : this.#indent;
  }

  /** Splits a word at emphasis markers; with colour off the markers stay as written. */
  #styleWord(word: string): { text: string; style: (t: string) => string }[] {
    const s = this.#styles;
    const pieces: { text: string; style: (t: string) => string }[] = [];
    const styleNow = (): (t: string) => string => {
      const { bold, italic, code } = this.#inline;
      if (code) return s.cyan;
      return (t) => {
        let r = t;
        if (italic) r = s.italic(r);
        if (bold) r = s.bold(r);
        return r;
      };
    };
    let text = "";
    const flush = () => {
      if (text) pieces.push({ text, style: styleNow() });
      text = "";
    };
    const markers = findMarkers(word, this.#inline.code);
    let index = 0;
    for (const marker of markers) {
      text += word.slice(index, marker.at);
      index = marker.at + marker.token.length;
      if (!s.color) {
        // Colour off: the marker is kept, but the state still tracks code spans.
        text += marker.token;
        if (marker.token === "`") this.#inline.code = !this.#inline.code;
        continue;
      }
      flush();
      if (marker.token === "`") this.#inline.code = !this.#inline.code;
      else if (marker.token.length === 2) this.#inline.bold = !this.#inline.bold;
      else this.#inline.italic = !this.#inline.italic;
    }
    text += word.slice(index);
    flush();
    return pieces;
  }

  /** Fence lines and code lines are written whole, highlighted; tables too, unwrapped. */
  #wholeLine(final: boolean): string | null {
    const newline = this.#pending.indexOf("\n");
    if (newline < 0 && !final) return null;
    const line = newline < 0 ? this.#pending : this.#pending.slice(0, newline);
    this.#pending = newline < 0 ? "" : this.#pending.slice(newline + 1);
    const s = this.#styles;
    const fenceMatch = /^ *(```|~~~)\s*([\w+#.-]*)/.exec(line);
    let out: string;
    if (this.#fence) {
      if (fenceMatch && fenceMatch[1] === this.#fence.marker && line.trim() === fenceMatch[1]) {
        this.#fence = null;
        out = s.dim(line);
      } else {
        out = highlightCode(line, this.#fence.lang, s);
      }
    } else if (fenceMatch) {
      this.#fence = { marker: fenceMatch[1]!, lang: (fenceMatch[2] ?? "").toLowerCase() };
      out = s.dim(line);
    } else {
      out = line;
    }
    this.#resetLine();
    return out + "\n";
  }

  /** Emphasis never spans lines: a stray marker must not style the rest of the answer. */
  #resetLine(): void {
    this.#inline = { bold: false, italic: false, code: false };
    this.#kind = null;
    this.#column = 0;
    this.#indent = "";
    this.#gap = "";
  }

  #safeWidth(): number {
    const width = this.#width();
    return width >= MIN_WIDTH ? width : Number.MAX_SAFE_INTEGER;
  }
}

/** An emphasis marker inside a word. */
interface Marker {
  at: number;
  token: string;
}

/**
 * Emphasis markers that open at a word's start or close at its end, so `snake_case` and `2*3`
 * stay literal; inside a code span only the closing backtick counts.
 */
function findMarkers(word: string, inCode: boolean): Marker[] {
  const markers: Marker[] = [];
  const lead = /^[("'[]*/.exec(word)![0].length;
  const trail = word.length - /[)"'\].,;:!?]*$/.exec(word)![0].length;
  const onlyMarkers = (from: number, to: number) => /^[*_`]*$/.test(word.slice(from, to));
  let i = 0;
  let code = inCode;
  while (i < word.length) {
    const ch = word[i]!;
    if (ch === "`") {
      markers.push({ at: i, token: "`" });
      code = !code;
      i++;
      continue;
    }
    if (!code && (ch === "*" || ch === "_")) {
      const token = word[i + 1] === ch ? ch + ch : ch;
      if (onlyMarkers(lead, i) || onlyMarkers(i + token.length, trail)) {
        markers.push({ at: i, token });
        i += token.length;
        continue;
      }
    }
    i++;
  }
  // A word that is only a marker ("a * b") is not emphasis.
  return markers.length === 1 && markers[0]!.token !== "`" && word === markers[0]!.token
    ? []
    : markers;
}

/** A line that starts a block of its own: never joined to the line before it. */
const BLOCK_START = /^\s*([-*+]\s|\d+[.)]\s|#|>|```|~~~|\|)/;

/**
 * Joins hard-wrapped lines of markdown paragraphs and list items, so the text can be wrapped
 * again at another width. Code blocks, headings and tables are kept as they are.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(reflowMarkdown("one\ntwo\n\n- a\n  b\n- c"), "one two\n\n- a b\n- c");
 * ```
 */
export function reflowMarkdown(text: string): string {
  const out: string[] = [];
  let inFence = false;
  let joinable = false;
  for (const line of text.split("\n")) {
    const isFence = /^\s*(```|~~~)/.test(line);
    if (isFence) inFence = !inFence;
    if (!inFence && !isFence && joinable && line.trim() && !BLOCK_START.test(line)) {
      out[out.length - 1] += " " + line.trim();
      continue;
    }
    out.push(line);
    joinable = !inFence && !isFence && line.trim() !== "" && !/^\s*(#|\|)/.test(line);
  }
  return out.join("\n");
}
