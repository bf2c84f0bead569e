/**
 * The shell parser behind `bash_allow` and the always-allow rules: mvdan/sh (the parser behind
 * shfmt) loaded on first use, the shapes of its tree, and the reading of a word as bash would
 * pass it on.
 *
 * The parser is the `mvdan-sh` package (mvdan/sh compiled to JavaScript by GopherJS): `sh-syntax`,
 * its WASM build, returns statements whose commands and word parts carry positions only, not
 * their kind. The walk reads GopherJS's own objects (see {@link GoNode}): going through the
 * package's JavaScript wrappers costs about half a millisecond per field read.
 * @module
 */

/** The text of an error mvdan/sh threw (a Go error); anything else is rethrown. */
export function parseMessage(error: unknown): string {
  // mvdan/sh throws Go errors: objects with an Error() method, e.g. `src:1:6: reached EOF…`.
  if (typeof error === "object" && error !== null && "Error" in error) {
    const text = (error as { Error(): string }).Error();
    return text.replace(/^src:/, "");
  }
  throw error;
}

/** Go strings are byte strings in GopherJS (one UTF-8 byte per char): compare prefixes so. */
export function goString(text: string): string {
  let bytes = "";
  for (const byte of new TextEncoder().encode(text)) bytes += String.fromCharCode(byte);
  return bytes;
}

/**
 * Whether `text` holds a control character, line breaks included: bash and the parser may split
 * words differently on them. Tab is the one they read alike (a blank).
 */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** A Go byte string as JavaScript text (the UTF-8 bytes decoded). */
export function jsString(bytes: string): string {
  return new TextDecoder().decode(Uint8Array.from(bytes, (char) => char.charCodeAt(0)));
}

/**
 * A GopherJS object of mvdan/sh's tree. A pointer's type is `constructor.string`
 * (`*syntax.CallExpr`); a nil pointer is its type's `nil` object and a nil interface is an
 * object without that string; a slice is a window on a shared array.
 */
export interface GoNode {
  constructor: { string?: string; nil?: unknown };
  Pos(): GoPos;
  End(): GoPos;
}
export interface GoPos {
  Offset(): number;
}
export interface GoSlice<T> {
  $array: T[];
  $offset: number;
  $length: number;
}
export interface GoFile {
  Stmts: GoSlice<GoStmt>;
}
export interface GoStmt extends GoNode {
  Cmd: GoNode;
  Background: boolean;
  Coprocess: boolean;
  Redirs: GoSlice<GoRedirect>;
}
export interface GoRedirect extends GoNode {
  Op: number;
  N: GoLit;
  Word: GoWord;
}
export interface GoWord extends GoNode {
  Parts: GoSlice<GoNode>;
}
export interface GoLit extends GoNode {
  Value: string;
}
export interface GoSglQuoted extends GoNode {
  Value: string;
  Dollar: boolean;
}
export interface GoDblQuoted extends GoNode {
  Parts: GoSlice<GoNode>;
  Dollar: boolean;
}
export interface GoParamExp extends GoNode {
  Excl: boolean;
  Length: boolean;
  Width: boolean;
  Index: GoNode;
  Slice: GoNode;
  Repl: GoNode;
  Exp: GoNode;
  Names: number;
}
export interface GoStmts extends GoNode {
  Stmts: GoSlice<GoStmt>;
}
export interface GoAssign extends GoNode {
  Append: boolean;
  Naked: boolean;
  Name: GoLit;
  Index: GoNode;
  Value: GoWord;
  Array: GoNode;
}
export interface GoCallExpr extends GoNode {
  Assigns: GoSlice<GoAssign>;
  Args: GoSlice<GoWord>;
}
export interface GoBinaryCmd extends GoNode {
  X: GoStmt;
  Y: GoStmt;
}
export interface GoIfClause extends GoNode {
  Cond: GoSlice<GoStmt>;
  Then: GoSlice<GoStmt>;
  Else: GoIfClause;
}
export interface GoWhileClause extends GoNode {
  Cond: GoSlice<GoStmt>;
  Do: GoSlice<GoStmt>;
}
export interface GoCaseClause extends GoNode {
  Word: GoWord;
  Items: GoSlice<{ Patterns: GoSlice<GoWord>; Stmts: GoSlice<GoStmt> }>;
}
export interface GoTimeClause extends GoNode {
  Stmt: GoStmt;
}

/** The node's type name (`CallExpr`), or `""` for a nil pointer or interface. */
export function kindOf(node: GoNode): string {
  const type = node.constructor.string;
  if (type === undefined || node === node.constructor.nil) return "";
  return type.startsWith("*syntax.") ? type.slice("*syntax.".length) : type;
}

/** A slice's items; the backing array itself when the slice spans it (read-only use). */
export function itemsOf<T>(slice: GoSlice<T>): readonly T[] {
  const { $array, $offset, $length } = slice;
  return $offset === 0 && $length === $array.length
    ? $array
    : $array.slice($offset, $offset + $length);
}

/** The loaded parser: `parse` throws mvdan/sh's error, `redirectOps` names operator codes. */
export interface Shell {
  parse(source: string): GoFile;
  redirectOps: ReadonlyMap<number, string>;
}

/** Redirection operators bash knows; the parser codes them as numbers, learnt at load. */
const REDIRECT_OPS = [">", ">>", "<", "<>", "<&", ">&", ">|", "<<<", "&>", "&>>"] as const;

let shellLoading: Promise<Shell> | undefined;

/** Loads mvdan/sh on first use: 1.5 MB of JavaScript that start-up must not pay for. */
export function loadShell(): Promise<Shell> {
  return shellLoading ??= (async () => {
    const { syntax } = (await import("mvdan-sh")).default as {
      syntax: {
        NewParser(): { Parse(source: string, name: string): { __internal_object__: GoFile } };
      };
    };
    // One parser serves every call: Parse is synchronous, and a new parser costs 3 ms.
    const parser = syntax.NewParser();
    const parse = (source: string) => parser.Parse(source, "src").__internal_object__;
    // Codes are the Go enum's order, which a new parser version may change: read them back.
    const probe = REDIRECT_OPS.map((op) => `: ${op}x`).join("; ") + "\n: <<x\nx\n: <<-x\nx\n";
    const names = [...REDIRECT_OPS, "<<", "<<-"];
    const redirectOps = new Map<number, string>();
    // The walk reads GopherJS's objects, not the package's API: fail closed on another shape.
    itemsOf(parse(probe).Stmts).forEach((stmt, i) => {
      const op = kindOf(stmt) === "Stmt" ? itemsOf(stmt.Redirs)[0]?.Op : undefined;
      const name = names[i];
      if (op === undefined || name === undefined) throw new Error("mvdan-sh: unexpected tree");
      redirectOps.set(op, name);
    });
    return { parse, redirectOps };
  })();
}

/**
 * A word's text (as a Go byte string) when bash would pass it on exactly as written, quotes
 * removed; `null` when bash computes it. Computed includes what is easy to overlook: a
 * backslash (`\-v` is `-v`), a glob (`-?` matches a file named `-v`), a brace expansion
 * (`{-v,x}` is two words) and a tilde. Judging such words as text would let them past the
 * checks that look for `-v` or a builtin's name.
 */
export function literalWord(word: GoWord): string | null {
  const { $array, $offset, $length } = word.Parts;
  let text = "";
  for (let i = 0; i < $length; i++) {
    const piece = literalPart($array[$offset + i]!, $length === 1);
    if (piece === null) return null;
    text = i === 0 ? piece : text + piece;
  }
  return text;
}

/** One part's text for {@link literalWord}; `isWholeWord` lets the word `[` (test) through. */
function literalPart(part: GoNode, isWholeWord: boolean): string | null {
  switch (kindOf(part)) {
    case "Lit": {
      const value = (part as GoLit).Value;
      const isPattern = /[\\*?{~]/.test(value) ||
        (value.includes("[") && !(isWholeWord && value === "["));
      return isPattern ? null : value;
    }
    case "SglQuoted":
      return (part as GoSglQuoted).Dollar ? null : (part as GoSglQuoted).Value;
    case "DblQuoted": {
      if ((part as GoDblQuoted).Dollar) return null;
      let text = "";
      for (const inner of itemsOf((part as GoDblQuoted).Parts)) {
        // Inside double quotes a backslash is removed before $, `, " and \ only.
        if (kindOf(inner) !== "Lit" || (inner as GoLit).Value.includes("\\")) return null;
        text += (inner as GoLit).Value;
      }
      return text;
    }
    default:
      return null;
  }
}

/** An assignment (`NAME=value`) as one word, or null when any part of it is computed. */
export function literalAssign(assign: GoAssign): string | null {
  if (!kindOf(assign.Name) || assign.Naked || kindOf(assign.Index) || kindOf(assign.Array)) {
    return null;
  }
  const value = kindOf(assign.Value) ? literalWord(assign.Value) : "";
  return value === null ? null : `${assign.Name.Value}${assign.Append ? "+=" : "="}${value}`;
}
