/**
 * Quoting for POSIX shells (bash, zsh, sh): the one place replio turns words into shell text, for
 * a command it builds to run, a line it prints to paste, or a completion script it writes.
 * @module
 */

/** Words a shell reads back unchanged without quotes: no space, quote, `$`, glob or operator. */
const PLAIN_WORD = /^[\w@%+=:,./-]+$/;

/**
 * `word` as a POSIX shell reads it back unchanged: as it is when nothing in it is special,
 * otherwise in single quotes (a `'` inside becomes `'\''`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(shellQuote("src/a_test.ts"), "src/a_test.ts");
 * assert.equal(shellQuote("it's $HOME"), "'it'\\''s $HOME'");
 * assert.equal(shellQuote(""), "''");
 * assert.equal(shellQuote("run|--yes"), "'run|--yes'");
 * ```
 */
export function shellQuote(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `words` as one line a POSIX shell reads back as the same words.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(shellLine(["deno", "run", "review it's src/"]), `deno run 'review it'\\''s src/'`);
 * ```
 */
export function shellLine(words: readonly string[]): string {
  return words.map(shellQuote).join(" ");
}
