/**
 * Telling a mistyped subcommand from a first prompt for the REPL. `replio "explain a.ts"` opens
 * the REPL with that prompt, so `replio sesions list` would too; a first argument of one word
 * close to a command name is taken for a typo instead (exit 2, naming the command). Several words
 * in one argument, a word near no command, or `--` before the words make a prompt.
 * @module
 */
import type { Command } from "commander";
import { editDistance } from "../config/mod.ts";
import { UsageError } from "./errors.ts";

/** Names shorter than this are never guessed: `replio hi` is a greeting, not a typo. */
const MIN_TYPO_LENGTH = 3;
/** A second edit is a typo only in a name this long: `hello` is no `help`, `sesion` is `sessions`. */
const LONG_NAME_LENGTH = 6;

/** The names a person can type for `command`'s subcommands, aliases included. */
export function subcommandNames(command: Command): string[] {
  return command.commands.flatMap((c) => [c.name(), ...c.aliases()]);
}

/**
 * The commands `word` is most likely a typo of, equally near: one edit away, or two when the
 * longer of the two has six letters or more; empty when none is that close.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const names = ["sessions", "serve", "tool", "tools", "help"];
 * assert.deepEqual(nearestCommands("sesions", names), ["sessions"]);
 * assert.deepEqual(nearestCommands("toolz", names), ["tool", "tools"]);
 * assert.deepEqual(nearestCommands("hello", names), []);
 * assert.deepEqual(nearestCommands("explain", names), []);
 * ```
 */
export function nearestCommands(word: string, names: readonly string[]): string[] {
  if (word.length < MIN_TYPO_LENGTH) return [];
  let best: string[] = [];
  let bestDistance = Infinity;
  for (const name of names) {
    const distance = editDistance(word.toLowerCase(), name);
    const allowed = Math.max(word.length, name.length) >= LONG_NAME_LENGTH ? 2 : 1;
    if (distance > allowed || distance > bestDistance) continue;
    if (distance < bestDistance) [best, bestDistance] = [[], distance];
    best.push(name);
  }
  return best;
}

/**
 * The error for a word that names no subcommand (`path` is how the person reached them, e.g.
 * `["sessions"]`, and `names` theirs), with the nearest names when there are some.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   unknownCommandError("lst", ["sessions"], ["list", "show"]).message,
 *   'unknown command "sessions lst" (did you mean sessions list?)',
 * );
 * assert.equal(
 *   unknownCommandError("nosuch", ["sessions"], ["list"]).message,
 *   'unknown command "sessions nosuch": run replio sessions --help for its commands',
 * );
 * ```
 */
export function unknownCommandError(
  word: string,
  path: readonly string[],
  names: readonly string[],
): UsageError {
  const typed = [...path, word].join(" ");
  const near = nearestCommands(word, names).map((name) => [...path, name].join(" "));
  if (near.length) {
    return new UsageError(`unknown command "${typed}" (did you mean ${near.join(" or ")}?)`);
  }
  const where = path.length ? ` ${path.join(" ")} --help for its` : " --help for the";
  return new UsageError(`unknown command "${typed}": run replio${where} commands`);
}

/**
 * Throws when the root's first prompt word looks like a mistyped command. `literal` is set when
 * the words came after `--`, which makes any words a prompt.
 */
export function rejectCommandTypo(
  prompt: readonly string[],
  names: readonly string[],
  literal: boolean,
): void {
  const first = prompt[0];
  if (literal || first === undefined || /\s/.test(first.trim())) return;
  if (nearestCommands(first, names).length) throw unknownCommandError(first, [], names);
}
