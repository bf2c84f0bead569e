/**
 * Light syntax highlighting for fenced code in answers: comments, strings, numbers and keywords,
 * one line at a time (a streamed block is highlighted as its lines complete).
 * @module
 */
import type { Styles } from "./styles.ts";

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
