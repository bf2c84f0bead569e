/**
 * Reads the plain YAML that config files and agent front matter almost always are, without the
 * yaml package: importing it costs about 75 ms (it loads as CommonJS through Deno's Node layer),
 * more than the rest of the way to the first model request. Anything outside the plain subset
 * returns `undefined`, and the caller hands the text to the yaml package, which then also gives
 * the error messages. What it accepts it reads exactly as the yaml package does (YAML 1.2 core
 * schema); `plain_yaml_test.ts` compares the two on generated documents.
 *
 * The subset: block mappings with plain keys, nested by space indentation; block sequences of
 * scalars; flow sequences of scalars on one line; `{}`; plain, single- and double-quoted scalars
 * on one line; comments.
 * @module
 */

/**
 * Parses YAML text: plain YAML here, anything else (and every error) by the yaml package, which
 * is imported only then.
 */
export async function parseYaml(text: string): Promise<unknown> {
  const plain = parsePlainYaml(text);
  if (plain !== undefined) return plain;
  const { parse } = await import("yaml");
  return parse(text);
}

/** One line that is not blank or a comment: its indentation and its trimmed text. */
interface Line {
  indent: number;
  text: string;
}

type Value = unknown;

/** Parses `text` if it is plain YAML; `undefined` when it is not (ask the yaml package). */
export function parsePlainYaml(text: string): Value | undefined {
  const lines: Line[] = [];
  for (const raw of text.split(/\r?\n/)) {
    if (raw.includes("\t")) return undefined;
    const body = raw.trimStart();
    if (body === "" || body.startsWith("#")) continue;
    if (body.startsWith("---") || body.startsWith("...") || body.startsWith("%")) return undefined;
    lines.push({ indent: raw.length - body.length, text: body.trimEnd() });
  }
  if (lines.length === 0) return null;
  const parser = new BlockParser(lines);
  const value = parser.block(lines[0]!.indent);
  return parser.done() ? value : undefined;
}

/** Not plain YAML: unwinds to {@link parsePlainYaml}, which answers `undefined`. */
class NotPlain extends Error {}

class BlockParser {
  #at = 0;
  readonly #lines: Line[];

  constructor(lines: Line[]) {
    this.#lines = lines;
  }

  /** Whether every line was read (a line left over is indented wrongly for this subset). */
  done(): boolean {
    return this.#at === this.#lines.length;
  }

  /** The mapping or sequence whose lines start at exactly `indent`; undefined if not plain. */
  block(indent: number): Value | undefined {
    try {
      return this.#nested(indent);
    } catch (error) {
      if (error instanceof NotPlain) return undefined;
      throw error;
    }
  }

  #mapping(indent: number): Record<string, Value> {
    const map: Record<string, Value> = {};
    while (this.#at < this.#lines.length) {
      const line = this.#lines[this.#at]!;
      if (line.indent < indent) break;
      if (line.indent > indent) throw new NotPlain();
      const entry = /^([A-Za-z_][A-Za-z0-9_.\-/]*):(?: +(.*))?$/.exec(line.text);
      if (!entry) throw new NotPlain();
      const key = entry[1]!;
      // A duplicate key is an error for the yaml package: let it say so. Keys that read as
      // another type (null, true) are its business too.
      if (Object.hasOwn(map, key) || key === "__proto__" || typeof plainScalar(key) !== "string") {
        throw new NotPlain();
      }
      this.#at++;
      const rest = stripComment(entry[2] ?? "");
      if (rest !== "") {
        map[key] = inlineValue(rest);
        continue;
      }
      const next = this.#lines[this.#at];
      // A nested block is indented more; a sequence may also sit at the key's own indentation.
      const nested = next !== undefined &&
        (next.indent > indent || (next.indent === indent && /^-( |$)/.test(next.text)));
      map[key] = nested ? this.#nested(next.indent) : null;
    }
    return map;
  }

  /** A sequence when the first line is an item (`- …`), else a mapping. */
  #nested(indent: number): Value {
    const first = this.#lines[this.#at]!;
    return /^-( |$)/.test(first.text) ? this.#sequence(indent) : this.#mapping(indent);
  }

  #sequence(indent: number): Value[] {
    const items: Value[] = [];
    while (this.#at < this.#lines.length) {
      const line = this.#lines[this.#at]!;
      if (line.indent !== indent || !/^-( |$)/.test(line.text)) break;
      const item = stripComment(line.text.slice(1).trimStart());
      // A mapping or a nested sequence inside an item is beyond this subset.
      if (item === "" || /^-( |$)/.test(item) || /^[^"'[{][^#]*?:( |$)/.test(item)) {
        throw new NotPlain();
      }
      items.push(inlineValue(item));
      this.#at++;
    }
    return items;
  }
}

/** The value text after a key or dash, without a trailing comment. */
function stripComment(text: string): string {
  if (text.startsWith('"') || text.startsWith("'") || text.startsWith("[")) {
    // Quoted and flow values end with their closing character; what follows must be a comment.
    return text;
  }
  const hash = text.search(/\s#/);
  return (hash === -1 ? text : text.slice(0, hash)).trimEnd();
}

/** A one-line value: a quoted scalar, a flow sequence of scalars, `{}`, or a plain scalar. */
function inlineValue(text: string): Value {
  if (text === "{}") return {};
  if (text.startsWith("[")) return flowSequence(text);
  if (text.startsWith('"') || text.startsWith("'")) {
    const [value, end] = quoted(text, 0);
    if (!isCommentOrEnd(text.slice(end))) throw new NotPlain();
    return value;
  }
  return plainScalar(text);
}

function isCommentOrEnd(rest: string): boolean {
  return rest.trim() === "" || /^\s+#/.test(rest);
}

/** `[a, "b", 'c']` on one line, scalars only. */
function flowSequence(text: string): Value[] {
  const items: Value[] = [];
  let at = 1;
  const skipSpaces = () => {
    while (text[at] === " ") at++;
  };
  skipSpaces();
  if (text[at] === "]") {
    if (!isCommentOrEnd(text.slice(at + 1))) throw new NotPlain();
    return items;
  }
  for (;;) {
    skipSpaces();
    let value: Value;
    if (text[at] === '"' || text[at] === "'") {
      [value, at] = quoted(text, at);
    } else {
      const end = text.slice(at).search(/[,\]]/);
      if (end === -1) throw new NotPlain();
      const plain = text.slice(at, at + end).trimEnd();
      if (plain === "" || /[[\]{}#:]/.test(plain)) throw new NotPlain();
      value = plainScalar(plain);
      at += end;
    }
    items.push(value);
    skipSpaces();
    if (text[at] === ",") {
      at++;
      continue;
    }
    if (text[at] === "]" && isCommentOrEnd(text.slice(at + 1))) return items;
    throw new NotPlain();
  }
}

/** The quoted scalar starting at `start` and the index after its closing quote. */
function quoted(text: string, start: number): [string, number] {
  const quote = text[start];
  let value = "";
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at]!;
    if (quote === "'") {
      if (char !== "'") value += char;
      else if (text[at + 1] === "'") value += text[++at];
      else return [value, at + 1];
      continue;
    }
    if (char === '"') return [value, at + 1];
    if (char !== "\\") {
      value += char;
      continue;
    }
    const escaped = ESCAPES[text[++at] ?? ""];
    if (escaped === undefined) throw new NotPlain();
    value += escaped;
  }
  throw new NotPlain(); // unclosed: perhaps a multi-line scalar
}

const ESCAPES: Record<string, string> = {
  "\\": "\\",
  '"': '"',
  "/": "/",
  n: "\n",
  t: "\t",
  r: "\r",
  "0": "\0",
};

/** A plain scalar as the YAML 1.2 core schema reads it; anything ambiguous is not plain. */
function plainScalar(text: string): Value {
  // Indicators that start something else (an anchor, a tag, a block scalar, a mapping …).
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text) && !/^-\d/.test(text)) throw new NotPlain();
  if (/: |:$/.test(text)) throw new NotPlain();
  if (/^(null|Null|NULL|~)$/.test(text)) return null;
  if (/^(true|True|TRUE)$/.test(text)) return true;
  if (/^(false|False|FALSE)$/.test(text)) return false;
  if (/^[-+]?[0-9]+$/.test(text)) return number(text, Number.isSafeInteger);
  if (/^[-+]?(\.[0-9]+|[0-9]+\.[0-9]*)$/.test(text)) return number(text, Number.isFinite);
  // Exponents, hexadecimal, octal, .inf and .nan are left to the yaml package.
  if (/^[-+]?(\.|[0-9])/.test(text) || /^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/.test(text)) {
    if (/^[0-9][0-9A-Za-z._-]*[A-Za-z_-][0-9A-Za-z._-]*$/.test(text) && !/^0[xo]|[eE]/.test(text)) {
      return text; // e.g. 1.2.3 or 2024-rc: a string for both
    }
    throw new NotPlain();
  }
  return text;
}

/** A number the two readers agree on: no -0, nothing past what a double holds exactly. */
function number(text: string, fits: (value: number) => boolean): number {
  const value = Number(text);
  if (!fits(value) || Object.is(value, -0)) throw new NotPlain();
  return value;
}
