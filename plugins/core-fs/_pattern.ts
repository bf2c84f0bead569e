/**
 * grep's pattern dialect: JavaScript regular expressions, made acceptable to Unicode mode and
 * rewritten for ripgrep's Rust engine so that both match the same lines.
 * @module
 */

/** Characters JavaScript's Unicode mode lets a backslash escape (`-` only inside a class). */
const JS_SYNTAX = "^$\\.*+?()[]{}|/";
/** Characters with a meaning in Rust's regex syntax, which keep their backslash there. */
const RUST_META = "\\.+*?()|[]{}^$#&-~";
/** JavaScript's `\s`, as the inside of a Rust character class (Rust's own differs slightly). */
const JS_SPACE =
  "\\t\\n\\x0B\\f\\r \\xA0\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}" +
  "\\x{3000}\\x{FEFF}";
/** JavaScript's `\w` and `\d`, which are ASCII-only where Rust's are Unicode. */
const JS_WORD = "0-9A-Za-z_";
const JS_DIGIT = "0-9";

/** One piece of a pattern: an escape such as `\d` or `\u{41}`, or a single character. */
interface Token {
  text: string;
  isEscape: boolean;
  /** Inside a `[...]` class. */
  inClass: boolean;
}

/** Splits a pattern into escapes and characters, tracking character classes. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let inClass = false;
  for (let i = 0; i < source.length;) {
    const c = source[i]!;
    if (c === "\\") {
      const escape = source.slice(i).match(
        /^\\(?:u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|[pP]\{[^}]*\}|k<[^>]*>|c[A-Za-z]|[\s\S])/,
      )?.[0] ?? "\\";
      tokens.push({ text: escape, isEscape: true, inClass });
      i += escape.length;
      continue;
    }
    const closes = c === "]" && inClass;
    tokens.push({ text: c, isEscape: false, inClass: inClass && !closes });
    if (c === "[") inClass = true;
    if (closes) inClass = false;
    i++;
  }
  return tokens;
}

/**
 * Drops backslashes that Unicode mode refuses but that only ask for a literal, such as `\-`,
 * `\:` or `\"`, which models often write.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(dropIdentityEscapes('a\\-b\\"'), 'a-b"');
 * assert.equal(dropIdentityEscapes("[\\-\\:]"), "[\\-:]");
 * ```
 */
export function dropIdentityEscapes(source: string): string {
  return tokenize(source).map(({ text, isEscape, inClass }) => {
    if (!isEscape || text.length !== 2) return text;
    const c = text[1]!;
    const keeps = JS_SYNTAX.includes(c) || (inClass && c === "-") || /[0-9A-Za-z]/.test(c);
    return keeps ? text : c;
  }).join("");
}

/**
 * The Unicode-mode JavaScript pattern `source` in ripgrep's syntax, with JavaScript's meaning
 * kept (ASCII `\d`, `\w` and `\b`; its `\s` and `.`), or null when Rust has no equivalent
 * (backreferences), in which case the built-in engine searches.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(toRustPattern("\\d+\\/x"), "[0-9]+/x");
 * assert.equal(toRustPattern("(?<name>a)\\1"), null);
 * ```
 */
export function toRustPattern(source: string): string | null {
  const out: string[] = [];
  for (const { text, isEscape, inClass } of tokenize(source)) {
    const rust = isEscape ? rustEscape(text, inClass) : rustChar(text, inClass, out);
    if (rust === null) return null;
    out.push(rust);
  }
  return out.join("");
}

function rustEscape(text: string, inClass: boolean): string | null {
  const c = text[1] ?? "";
  if (text.length > 2) {
    if (c === "u") return `\\x{${text.replace(/^\\u\{?|\}$/g, "")}}`;
    if (c === "c") return `\\x{${(text.charCodeAt(2) % 32).toString(16)}}`;
    if (c === "k") return null;
    return text; // \xHH and \p{…} read the same in Rust
  }
  switch (c) {
    case "d":
      return inClass ? JS_DIGIT : `[${JS_DIGIT}]`;
    case "w":
      return inClass ? JS_WORD : `[${JS_WORD}]`;
    case "s":
      return inClass ? JS_SPACE : `[${JS_SPACE}]`;
    case "D":
      return inClass ? text : `[^${JS_DIGIT}]`;
    case "W":
      return inClass ? text : `[^${JS_WORD}]`;
    case "S":
      return inClass ? text : `[^${JS_SPACE}]`;
    case "b":
      return inClass ? "\\x08" : "(?-u:\\b)";
    case "B":
      return "(?-u:\\B)";
    case "0":
      return "\\x00";
    case "t":
    case "n":
    case "r":
    case "f":
    case "v":
      return text;
  }
  if (/[1-9]/.test(c)) return null; // a backreference
  if (/[A-Za-z]/.test(c)) return text;
  return RUST_META.includes(c) ? text : c;
}

function rustChar(c: string, inClass: boolean, before: readonly string[]): string {
  if (!inClass) {
    if (c === ".") return "[^\\n\\r\\x{2028}\\x{2029}]";
    // Named groups: `(?<name>` is `(?P<name>` in the Rust regex ripgrep 13 ships.
    if (c === "<" && before.at(-1) === "?" && before.at(-2) === "(") return "P<";
    return c;
  }
  // Inside a class Rust reads `[` as a nested class and `&&`, `~~` as set operations.
  return c === "[" || c === "&" || c === "~" ? `\\${c}` : c;
}
