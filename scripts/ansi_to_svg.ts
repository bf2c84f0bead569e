/**
 * A terminal capture with colour (`tmux capture-pane -e`: text and SGR sequences) drawn as an SVG
 * picture: one `<text>` per line, one `<tspan>` per run of equal style, each placed at its column so
 * the layout does not depend on the viewer's font width. Used by `deno task screenshot`.
 * @module
 */

/** How a run of characters looks. */
interface Style {
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

/** Options for {@link ansiToSvg}. */
export interface SvgOptions {
  /** Columns of the terminal; the picture is this wide. Default: the longest line. */
  columns?: number;
  /** Shown in the window's title bar. */
  title?: string;
}

/** The colours of the picture: a dark theme, the 16 ANSI colours first. */
const THEME = {
  background: "#1e1e2e",
  foreground: "#d4d4d8",
  titleBar: "#2a2a3c",
  ansi: [
    "#2e2e3a",
    "#f0717b",
    "#8bd5a0",
    "#e9c46a",
    "#7aa2f7",
    "#c792ea",
    "#6fd3e0",
    "#d4d4d8",
    "#6b6b80",
    "#ff8f97",
    "#a8e6b8",
    "#f5d78e",
    "#9bbcff",
    "#dcb0f5",
    "#93e5ee",
    "#ffffff",
  ],
} as const;
const FONT_SIZE = 14;
/** A monospace cell: 0.6 em wide, as most terminal fonts are. */
const CELL_WIDTH = FONT_SIZE * 0.6;
const LINE_HEIGHT = FONT_SIZE * 1.4;
const PADDING = 16;
/** How much of the background faint (SGR 2) text takes on. */
const DIM_MIX = 0.45;
const TITLE_BAR = 28;

const PLAIN: Style = {
  fg: null,
  bg: null,
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
};

/**
 * The SVG picture of `capture`, a terminal's text with SGR colour sequences.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const svg = ansiToSvg("\x1b[1;31mred\x1b[0m <ok>", { columns: 10 });
 * assert.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"'));
 * assert.ok(svg.includes('fill="#f0717b" font-weight="bold">red</tspan>'));
 * assert.ok(svg.includes("&lt;ok&gt;"));
 * ```
 */
export function ansiToSvg(capture: string, options: SvgOptions = {}): string {
  const lines = trimBlankEnd(capture.replace(/\r/g, "").split("\n"));
  const rows = lines.map(parseLine);
  const columns = options.columns ??
    Math.max(1, ...rows.map((runs) => runs.reduce((n, run) => n + [...run.text].length, 0)));
  const width = Math.round(columns * CELL_WIDTH + 2 * PADDING);
  const height = Math.round(TITLE_BAR + rows.length * LINE_HEIGHT + 2 * PADDING);
  const body = rows.map((runs, i) => drawLine(runs, PADDING + TITLE_BAR + i * LINE_HEIGHT))
    .filter(Boolean);
  const title = options.title ?? "";
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<rect width="${width}" height="${height}" rx="8" fill="${THEME.background}"/>`,
    `<rect width="${width}" height="${TITLE_BAR}" rx="8" fill="${THEME.titleBar}"/>`,
    `<rect y="${TITLE_BAR - 8}" width="${width}" height="8" fill="${THEME.titleBar}"/>`,
    ...["#ff5f57", "#febc2e", "#28c840"].map((color, i) =>
      `<circle cx="${18 + i * 20}" cy="${TITLE_BAR / 2}" r="6" fill="${color}"/>`
    ),
    `<text x="${width / 2}" y="${TITLE_BAR / 2 + 4}" fill="#9a9aae" font-family="sans-serif" ` +
    `font-size="12" text-anchor="middle">${escapeXml(title)}</text>`,
    `<g font-family="ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace" ` +
    `font-size="${FONT_SIZE}" fill="${THEME.foreground}" xml:space="preserve">`,
    ...body,
    "</g>",
    "</svg>",
    "",
  ].join("\n");
}

/** One run of text in one style. */
interface Run {
  text: string;
  style: Style;
}

/** Splits one captured line at its SGR sequences; other escape sequences are dropped. */
function parseLine(line: string): Run[] {
  const runs: Run[] = [];
  let style = PLAIN;
  // deno-lint-ignore no-control-regex
  const pattern = /\x1b\[([\d;:]*)([A-Za-z])|\x1b[^[]|([^\x1b]+)/g;
  for (const match of line.matchAll(pattern)) {
    if (match[3] !== undefined) runs.push({ text: match[3], style });
    else if (match[2] === "m") style = applySgr(style, match[1] ?? "");
  }
  return runs;
}

/** The style after one SGR sequence's parameters (`1;31`, `38;5;208`, `0`). */
function applySgr(style: Style, parameters: string): Style {
  const codes = parameters === "" ? [0] : parameters.split(/[;:]/).map(Number);
  let next = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === 0) next = { ...PLAIN };
    else if (code === 1) next.bold = true;
    else if (code === 2) next.dim = true;
    else if (code === 3) next.italic = true;
    else if (code === 4) next.underline = true;
    else if (code === 7) next.inverse = true;
    else if (code === 22) next = { ...next, bold: false, dim: false };
    else if (code === 23) next.italic = false;
    else if (code === 24) next.underline = false;
    else if (code === 27) next.inverse = false;
    else if (code >= 30 && code <= 37) next.fg = THEME.ansi[code - 30]!;
    else if (code >= 90 && code <= 97) next.fg = THEME.ansi[code - 90 + 8]!;
    else if (code >= 40 && code <= 47) next.bg = THEME.ansi[code - 40]!;
    else if (code >= 100 && code <= 107) next.bg = THEME.ansi[code - 100 + 8]!;
    else if (code === 39) next.fg = null;
    else if (code === 49) next.bg = null;
    else if (code === 38 || code === 48) {
      const { color, used } = extendedColor(codes, i + 1);
      if (code === 38) next.fg = color;
      else next.bg = color;
      i += used;
    }
  }
  return next;
}

/** A `5;n` (256 colours) or `2;r;g;b` colour starting at `codes[at]`, and how many codes it took. */
function extendedColor(codes: number[], at: number): { color: string | null; used: number } {
  if (codes[at] === 5) return { color: color256(codes[at + 1] ?? 0), used: 2 };
  if (codes[at] === 2) {
    const [r = 0, g = 0, b = 0] = codes.slice(at + 1, at + 4);
    return { color: hex(r, g, b), used: 4 };
  }
  return { color: null, used: 0 };
}

/** xterm's 256-colour palette: the 16 theme colours, a 6×6×6 cube, then 24 greys. */
function color256(n: number): string {
  if (n < 16) return THEME.ansi[n]!;
  if (n >= 232) {
    const level = 8 + (n - 232) * 10;
    return hex(level, level, level);
  }
  const cube = n - 16;
  const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
  return hex(level(Math.floor(cube / 36)), level(Math.floor(cube / 6) % 6), level(cube % 6));
}

/** `a` mixed with `b`, `share` of it `b` (`#rrggbb` both). */
function mix(a: string, b: string, share: number): string {
  const channels = (color: string) => [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  const [x, y] = [channels(a), channels(b)];
  const [r = 0, g = 0, bl = 0] = x.map((v, i) => Math.round(v * (1 - share) + y[i]! * share));
  return hex(r, g, bl);
}

function hex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((v) => v.toString(16).padStart(2, "0")).join("")}`;
}

/** One `<text>` line: background boxes first, then each run at its column. */
function drawLine(runs: Run[], top: number): string {
  const baseline = (top + FONT_SIZE).toFixed(1);
  const boxes: string[] = [];
  const spans: string[] = [];
  let column = 0;
  for (const { text, style } of runs) {
    const cells = [...text].length;
    const color = style.inverse ? style.bg ?? THEME.background : style.fg;
    // Faint text is mixed into the background: `opacity` on a tspan is ignored by some renderers.
    const fg = style.dim ? mix(color ?? THEME.foreground, THEME.background, DIM_MIX) : color;
    const bg = style.inverse ? style.fg ?? THEME.foreground : style.bg;
    const x = (PADDING + column * CELL_WIDTH).toFixed(1);
    if (bg) {
      boxes.push(
        `<rect x="${x}" y="${top.toFixed(1)}" width="${(cells * CELL_WIDTH).toFixed(1)}" ` +
          `height="${LINE_HEIGHT.toFixed(1)}" fill="${bg}"/>`,
      );
    }
    if (text.trim()) {
      const attributes = [
        `x="${x}"`,
        fg ? `fill="${fg}"` : "",
        style.bold ? `font-weight="bold"` : "",
        style.italic ? `font-style="italic"` : "",
        style.underline ? `text-decoration="underline"` : "",
      ].filter(Boolean).join(" ");
      spans.push(`<tspan ${attributes}>${escapeXml(text)}</tspan>`);
    }
    column += cells;
  }
  const line = spans.length ? `<text y="${baseline}">${spans.join("")}</text>` : "";
  return boxes.join("") + line;
}

function escapeXml(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}

function trimBlankEnd(lines: string[]): string[] {
  const out = [...lines];
  // deno-lint-ignore no-control-regex
  while (out.length && out.at(-1)!.replace(/\x1b\[[\d;:]*[A-Za-z]/g, "").trim() === "") out.pop();
  return out;
}
