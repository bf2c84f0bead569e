/**
 * Narrowing ripgrep to the file names a glob could match, without letting the glob override
 * ignore files. ripgrep's `--glob` overrides them (`--glob '*.log'` lists the `.log` files
 * `.gitignore` excludes); a file type (`--type-add`) is applied after them, but sees only a
 * file's name and reads its globs in ripgrep's dialect, so it only narrows: the pattern itself
 * is matched by the caller, as the built-in walk matches it.
 * @module
 */

/** The file type defined for one search; no type ripgrep ships has this name. */
const NAME_TYPE = "replioglob";
/** Name globs past this many (braces multiplied out) cost ripgrep more than they save. */
const MAX_NAME_GLOBS = 32;
/** Characters that mean themselves both to picomatch and to ripgrep's globs. */
const PLAIN = /^[\p{L}\p{N}._\- ]$/u;
/** A character class whose members are all plain, such as `[a-z]` or `[!._]`. */
const PLAIN_CLASS = /^[!^]?[\p{L}\p{N}._\- ]+$/u;

/**
 * `--type-add`/`--type` flags that narrow ripgrep to names `pattern` could match, or none when
 * the pattern says nothing about names both dialects read alike.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(nameTypeArgs("src/*.ts"), ["--type-add", "replioglob:*.ts", "--type", "replioglob"]);
 * assert.deepEqual(nameTypeArgs("src/**"), []);
 * ```
 */
export function nameTypeArgs(pattern: string): string[] {
  const names = nameGlobs(pattern);
  if (names === null) return [];
  return [...names.flatMap((name) => ["--type-add", `${NAME_TYPE}:${name}`]), "--type", NAME_TYPE];
}

/**
 * Globs for the file names a pattern can match, in the syntax of ripgrep's `--type-add`, or
 * null when the pattern says nothing about names that both dialects read alike. They may
 * match more names than the pattern (`?` and `[…]` become `*`), never fewer.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(nameGlobs("src/**\/*_test.{ts,tsx}"), ["*_test.ts", "*_test.tsx"]);
 * assert.deepEqual(nameGlobs("data_[0-9]?.csv"), ["data_*.csv"]);
 * assert.equal(nameGlobs("src/**"), null);
 * assert.equal(nameGlobs("*.@(js|ts)"), null);
 * ```
 */
export function nameGlobs(pattern: string): string[] | null {
  // A leading "!" negates the whole pattern in picomatch.
  if (pattern.replace(/^\.?\//, "").startsWith("!")) return null;
  const name = pattern.slice(pattern.lastIndexOf("/") + 1);
  if (name.includes("**")) return null;
  // A brace or class opened before the last "/" leaves its closing bracket unmatched here,
  // which is not plain: such a pattern is not narrowed.
  const globs = nameAlternatives([...name]);
  if (globs === null || globs.length > MAX_NAME_GLOBS) return null;
  const unique = [...new Set(globs.map((glob) => glob.replace(/\*+/g, "*")))];
  // "" (a pattern ending in "/") names nothing; "*" names everything.
  return unique.includes("") || unique.includes("*") ? null : unique;
}

/** The `*`-and-literal globs one name pattern (as code points) spells, or null. */
function nameAlternatives(chars: readonly string[]): string[] | null {
  let globs = [""];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    let next: string[];
    if (char === "*" || char === "?") {
      next = ["*"];
    } else if (char === "[") {
      const end = chars.indexOf("]", i + 1);
      if (end === -1 || !PLAIN_CLASS.test(chars.slice(i + 1, end).join(""))) return null;
      next = ["*"];
      i = end;
    } else if (char === "{") {
      const end = chars.indexOf("}", i + 1);
      const body = chars.slice(i + 1, end);
      // Only one level of braces with a choice in it: `{a}` and `{1..3}` mean other things.
      if (end === -1 || body.includes("{") || !body.includes(",")) return null;
      next = [];
      for (const part of body.join("").split(",")) {
        const alternatives = nameAlternatives([...part]);
        if (alternatives === null) return null;
        next.push(...alternatives);
      }
      i = end;
    } else if (PLAIN.test(char)) {
      next = [char];
    } else {
      return null;
    }
    globs = globs.flatMap((glob) => next.map((more) => glob + more));
    if (globs.length > MAX_NAME_GLOBS) return null;
  }
  return globs;
}
