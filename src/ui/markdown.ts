/**
 * Light markdown for streamed answers: headings, bold, italic, inline code, lists, quotes,
 * rules and fenced code with highlighting, word-wrapped to the terminal width. Text arrives in
 * arbitrary pieces; a word is written only once it is complete, so no word is ever split
 * across lines. With colour off the output is the source text itself, only wrapped.
 * @module
 */
import type { Styles } from "./styles.ts";

/** What the renderer needs: styles and the current width (read per line: terminals resize). */
export interface MarkdownOptions {
  styles: Styles;
  width: () => number;
}

/** Narrower than this, wrapping would leave one word per line; the terminal wraps instead. */
const MIN_WIDTH = 20;

/** Colour sequences take no columns; lines that carry them are measured without them. */
// deno-lint-ignore no-control-regex -- the escape character is what is matched.
const SGR_SEQUENCE = /\x1b\[[0-9;]*m/g;

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

/** Languages whose comments start with `#`; the others use `//` and block comments. */
const HASH_COMMENTS = new Set([
  "py",
  "python",
  "sh",
  "bash",
  "shell",
  "zsh",
  "console",
  "yaml",
  "yml",
  "toml",
  "rb",
  "ruby",
  "dockerfile",
  "make",
  "makefile",
  "r",
  "perl",
  "ini",
  "conf",
]);

const KEYWORDS = new Set(
  ("async await break case catch class const continue def default defer del do elif else " +
    "enum export extends false fn for from func function go if impl import in interface let " +
    "match mut new nil none null pass pub raise return self static struct switch this throw " +
    "true try type typeof use var while with yield True False None").split(" "),
);

/**
 * One code line with strings, numbers, comments and keywords coloured.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { createStyles } from "./styles.ts";
 * assert.equal(highlightCode("const a = 1; // x", "ts", createStyles(false)), "const a = 1; // x");
 * ```
 */
export function highlightCode(line: string, lang: string, styles: Styles): string {
  if (!styles.color) return line;
  const comment = HASH_COMMENTS.has(lang) ? "#.*$" : lang ? "\\/\\/.*$|\\/\\*.*?(?:\\*\\/|$)" : "";
  const pattern = new RegExp(
    [
      comment,
      `"(?:[^"\\\\]|\\\\.)*"?`,
      `'(?:[^'\\\\]|\\\\.)*'?`,
      "`(?:[^`\\\\]|\\\\.)*`?",
      "\\b\\d[\\d_.]*\\b",
      "[A-Za-z_][\\w]*",
    ].filter(Boolean).join("|"),
    "g",
  );
  return line.replace(pattern, (token) => {
    if (token.startsWith("#") || token.startsWith("//") || token.startsWith("/*")) {
      return styles.dim(token);
    }
    if (/^["'`]/.test(token)) return styles.green(token);
    if (/^\d/.test(token)) return styles.yellow(token);
    if (KEYWORDS.has(token)) return styles.magenta(token);
    return token;
  });
}

/**
 * Columns a string takes in a terminal: East Asian wide characters and most emoji take two,
 * combining marks and colour sequences none.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(displayWidth("abc"), 3);
 * assert.equal(displayWidth("日本"), 4);
 * ```
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of stripStyles(text)) width += charWidth(ch.codePointAt(0)!);
  return width;
}

/**
 * The text without its colour sequences.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(stripStyles("\x1b[2mdim\x1b[22m"), "dim");
 * ```
 */
export function stripStyles(text: string): string {
  return text.replace(SGR_SEQUENCE, "");
}

function charWidth(code: number): number {
  if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return 0;
  if ((code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) || code === 0xfe0f) {
    return 0;
  }
  const wide = (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf) ||
    (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) ||
    (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1faff) ||
    (code >= 0x20000 && code <= 0x3fffd);
  return wide ? 2 : 1;
}

/** The longest prefix of `text` that fits in `columns` (at least one character). */
function sliceWidth(text: string, columns: number): string {
  let width = 0;
  let end = 0;
  for (const ch of text) {
    const w = charWidth(ch.codePointAt(0)!);
    if (width + w > columns && end > 0) break;
    width += w;
    end += ch.length;
  }
  return text.slice(0, end);
}

/**
 * Word-wraps text to `width` columns; continuation lines start with `indent`. Lines already
 * shorter stay as they are; a word longer than a line is cut. Colour sequences take no room.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(wrapText("← Read engine.py [offset=299, limit=85]", 24, "  "), [
 *   "← Read engine.py",
 *   "  [offset=299, limit=85]",
 * ]);
 * ```
 */
export function wrapText(text: string, width: number, indent = ""): string[] {
  // Too narrow to wrap usefully (or not a terminal at all): the terminal wraps, if anything.
  if (width < MIN_WIDTH) return text.split("\n");
  const lines: string[] = [];
  for (const source of text.split("\n")) {
    let line = "";
    let lineWidth = 0;
    for (const token of source.split(/( +)/)) {
      if (token === "") continue;
      const w = displayWidth(token);
      if (/^ +$/.test(token)) {
        if (lineWidth + w < width) {
          line += token;
          lineWidth += w;
        }
        continue;
      }
      if (lineWidth > displayWidth(indent) && lineWidth + w > width) {
        lines.push(line.trimEnd());
        line = indent;
        lineWidth = displayWidth(indent);
      }
      let rest = token;
      while (lineWidth + displayWidth(rest) > width && width - lineWidth > 0) {
        const head = sliceWidth(rest, width - lineWidth);
        lines.push(line + head);
        line = indent;
        lineWidth = displayWidth(indent);
        rest = rest.slice(head.length);
      }
      line += rest;
      lineWidth += displayWidth(rest);
    }
    lines.push(line.trimEnd());
  }
  return lines;
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
