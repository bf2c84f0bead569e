/**
 * Terminal columns of text: the width a string takes (wide characters count two, colour
 * sequences none), cutting at a width, and word-wrapping to one.
 * @module
 */

/** Narrower than this, wrapping would leave one word per line; the terminal wraps instead. */
export const MIN_WIDTH = 20;

/** Colour sequences take no columns; lines that carry them are measured without them. */
// deno-lint-ignore no-control-regex -- the escape character is what is matched.
const SGR_SEQUENCE = /\x1b\[[0-9;]*m/g;

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
export function sliceWidth(text: string, columns: number): string {
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
