/**
 * run_command's "always allow" rules (the REPL's `a`, `replio approve --always-prefix`): the
 * rule offered for a command, whether a rule covers a later command, and how it reads. A rule
 * never widens past what the person saw: it is the exact command, or a prefix of whole words
 * for a program whose further words are data or whose dangerous forms the parser can see
 * (program_reach.ts). Every check re-parses the whole line, so a rule recorded before these
 * limits (`find`, `bash`) still never covers `find . -delete` or `bash evil.sh`.
 * @module
 */
import { hasControlCharacter } from "./_shell_tree.ts";
import { checkBashAllow } from "./bash_allow.ts";
import { reachProblem, refusedForms, rulePrefix } from "./program_reach.ts";

/**
 * A word a prefix rule may name as it is, read alike by a person, bash and a plain split: no
 * quotes, expansions, globs, operators or comments.
 */
const PLAIN_WORD = /^[\w./:=@%+,-]+$/;

/**
 * The rule offered for `command`: a prefix (`ls`, `git diff`, `find`) when the program's
 * further words cannot run code or write files, else the exact command; null for an empty or
 * multi-line command. Pure and synchronous: {@link ruleCovers} is the judge that parses, and
 * a caller offers a rule only when it covers the command it is offered on.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(proposeRule("find . -name x"), "find");
 * assert.equal(proposeRule("find . -delete"), "find . -delete");
 * assert.equal(proposeRule("bash scripts/check.sh"), "bash scripts/check.sh");
 * ```
 */
export function proposeRule(command: string): string | null {
  const line = command.trim();
  // A line break or control character would let a reader of the rule miss part of it.
  if (line === "" || hasControlCharacter(line)) return null;
  const words = line.split(/[ \t]+/);
  // `NAME=value cmd` sets a variable for cmd (PATH, LD_PRELOAD): never a prefix's first word.
  const isPlain = words.every((word) => PLAIN_WORD.test(word)) && !words[0]!.includes("=");
  return (isPlain ? rulePrefix(words)?.join(" ") : undefined) ?? line;
}

/**
 * Whether the rule `pattern` covers `command`: the very command (the same text), or, for a
 * pattern of plain words, a line whose every command starts with those words (bash_allow's
 * parser and never-covered rules) and that no program uses in a form the rule must not cover.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(await ruleCovers("find src -name '*.ts'", "find"), true);
 * assert.equal(await ruleCovers("find . -delete", "find"), false);
 * assert.equal(await ruleCovers("bash evil.sh", "bash scripts/check.sh"), false);
 * ```
 */
export async function ruleCovers(command: string, pattern: string): Promise<boolean> {
  const rule = pattern.trim();
  if (rule === "" || hasControlCharacter(command)) return false;
  if (command.trim() === rule) return true;
  if (!rule.split(/[ \t]+/).every((word) => PLAIN_WORD.test(word))) return false;
  return (await checkBashAllow(command, [rule], reachProblem)).allowed;
}

/**
 * How the rule `pattern` reads after the tool's name, as {@link ruleCovers} decides it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(describeCommandRule("ls"), 'commands starting with "ls"');
 * assert.equal(describeCommandRule("bash check.sh"), 'exactly "bash check.sh"');
 * ```
 */
export function describeCommandRule(pattern: string): string {
  const rule = pattern.trim();
  const words = rule.split(/[ \t]+/);
  const refused = refusedForms(words);
  // A prefix covers more than itself when its own words need no exact rule, or when it names
  // a subcommand program alone (`git`: its read-only subcommands).
  const isPrefix = words.every((word) => PLAIN_WORD.test(word)) &&
    (reachProblem(words) === null || (words.length === 1 && refused !== null));
  if (!isPrefix) return `exactly "${rule}"`;
  return `commands starting with "${rule}"${refused ? `, except with ${refused}` : ""}`;
}
