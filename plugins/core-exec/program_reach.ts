/**
 * What a program can reach through its arguments, for run_command's "always allow" rules
 * (always_rule.ts, docs/permissions.md "Always allow"). A rule wider than the exact command is
 * safe only when the words it lets vary cannot choose code to run or files to write or delete.
 * So every program is one of:
 *
 * - **data**: its arguments are things to read and options that shape the output (`ls`, `cat`,
 *   `grep`); a rule may name the program alone;
 * - **guarded**: it reads by default but a closed set of its options runs a command or writes a
 *   file (`find -exec`, `sort -o`, `git diff --output`); a rule may name the program (and
 *   subcommand), and never covers those options or a word bash computes (`$x` may hold one);
 * - **open**, every program not listed: it runs code its arguments name (`bash`, `python`,
 *   `xargs`, `env`, `make`, `npm`, `npx`, `deno`), or writes or deletes what they name (`rm`,
 *   `cp`, `tar`, `rsync`, `sed -i`, `tee`), or is not known here. Only the exact command.
 *
 * Listing is a claim about every option of the program; unknown programs are open, so a
 * missing entry costs a question, never a widened rule. Option lists were checked against GNU
 * coreutils, findutils, grep, git 2.39 and ripgrep 13 and 14. Long options are refused by any
 * prefix too: GNU getopt and git accept an unambiguous abbreviation (`sort --out=f` is
 * `--output`).
 * @module
 */

/** Forms of a guarded program that a rule must not cover, and how a person reads them. */
interface Guard {
  /** The refused forms as a list a person reads: `-delete, -exec or -fprint`. */
  readonly refused: string;
  /** Why the arguments after the program (and subcommand) need an exact rule, or null. */
  problem(args: readonly (string | null)[]): string | null;
}

/** Programs whose every argument is data: no option runs a command or writes a file. */
const DATA_PROGRAMS: ReadonlySet<string> = new Set([
  ...["ls", "cat", "tac", "head", "tail", "wc", "nl", "od", "strings", "base64", "rev"],
  ...["grep", "egrep", "fgrep", "diff", "cmp", "comm", "cut", "paste", "join", "tr", "fold"],
  ...["expand", "unexpand", "column", "jq", "echo", "pwd", "true", "false", "seq", "sleep"],
  ...["basename", "dirname", "realpath", "readlink", "stat", "du", "df", "which"],
  ...["whoami", "id", "uname", "nproc", "printenv"],
  ...["md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum", "cksum"],
]);

/** find's actions that run a command (-exec, -ok), delete (-delete) or write a file (-fprint). */
const FIND_ACTIONS: readonly string[] = [
  "-delete",
  "-exec",
  "-execdir",
  "-ok",
  "-okdir",
  "-fls",
  "-fprint",
  "-fprint0",
  "-fprintf",
];

/** Why a guarded program's computed word (`$x`, a glob) is refused: it may become any option. */
const COMPUTED = "a computed word could be any option";

/** Guarded programs by name (`find`), or by name and subcommand (`git diff`). */
const GUARDED: ReadonlyMap<string, Guard> = new Map([
  ["find", {
    refused: `${FIND_ACTIONS.join(", ")} or a computed word`,
    // find reads its expression itself: no abbreviations, but a computed word can be an action.
    problem: (args) => {
      if (args.includes(null)) return COMPUTED;
      const action = args.find((word) => FIND_ACTIONS.includes(word!));
      return action === undefined ? null : `${action} runs a command, deletes or writes a file`;
    },
  }],
  [
    "sort",
    optionGuard({ short: "oT", long: ["output", "temporary-directory", "compress-program"] }),
  ],
  ["rg", optionGuard({ short: "", long: ["pre", "hostname-bin"] })],
  // git: the read-only subcommands; anything before the subcommand (`git -c`, `git -C`) is open.
  ...["status", "blame", "ls-files", "ls-tree", "rev-parse", "describe", "merge-base"].map((
    sub,
  ) => [`git ${sub}`, optionGuard({ short: "", long: [] })] as const),
  ...["diff", "log", "show", "shortlog", "rev-list"].map((sub) =>
    [`git ${sub}`, optionGuard({ short: "", long: ["output"] })] as const
  ),
  ["git grep", optionGuard({ short: "O", long: ["open-files-in-pager"] })],
]);

/** Programs whose guard is chosen by the subcommand, the second word. */
const SUBCOMMAND_PROGRAMS: ReadonlySet<string> = new Set(["git"]);

/**
 * A guard for options parsed as GNU getopt or git do: refuses a word with one of the `short`
 * letters after a single dash (options bundle: `-no` is `-n -o`), any prefix of a `long` name
 * after two dashes, and a computed word.
 */
function optionGuard(options: { short: string; long: readonly string[] }): Guard {
  const forms = [
    ...[...options.short].map((letter) => `-${letter}`),
    ...options.long.map((name) => `--${name}`),
  ];
  return {
    refused: [...forms, "a computed word"].join(", ").replace(/, ([^,]*)$/, " or $1"),
    problem: (args) => {
      if (args.includes(null)) return COMPUTED;
      const option = args.find((word) =>
        isShortOption(word!, options.short) || isLong(word!, options.long)
      );
      return option === undefined ? null : `${option} runs a command or writes a file`;
    },
  };
}

function isShortOption(word: string, letters: string): boolean {
  return /^-[^-]/.test(word) && [...word.slice(1)].some((char) => letters.includes(char));
}

function isLong(word: string, names: readonly string[]): boolean {
  if (!word.startsWith("--")) return false;
  const name = word.slice(2).split("=")[0]!;
  return name !== "" && names.some((long) => long.startsWith(name));
}

/** What a rule may name of `words`: the data program, or the guarded program and its guard. */
function lookUp(words: readonly (string | null)[]): { key: string; guard: Guard | null } | null {
  const [program, sub] = words;
  // A path (`./ls`, `/bin/ls`) is a file, not the program this table describes.
  if (!program || program.includes("/")) return null;
  if (DATA_PROGRAMS.has(program)) return { key: program, guard: null };
  const key = SUBCOMMAND_PROGRAMS.has(program) ? `${program} ${sub}` : program;
  const guard = GUARDED.get(key);
  return guard ? { key, guard } : null;
}

/**
 * Why a command (its words as bash passes them, `null` for a computed word) needs a rule for
 * the exact command, or null when a prefix rule may cover it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(reachProblem(["find", ".", "-name", "x"]), null);
 * assert.match(reachProblem(["find", ".", "-delete"])!, /^-delete runs a command/);
 * assert.match(reachProblem(["bash", "check.sh"])!, /only the exact command/);
 * ```
 */
export function reachProblem(words: readonly (string | null)[]): string | null {
  const found = lookUp(words);
  if (!found) {
    const name = words[0] ?? "a computed command";
    return `${name} can run programs or write files through its arguments: only the exact ` +
      "command is covered";
  }
  return found.guard?.problem(words.slice(found.key.split(" ").length)) ?? null;
}

/**
 * The words a prefix rule for this command names (`["ls"]`, `["git", "diff"]`), or null when
 * only the exact command is safe to allow again.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(rulePrefix(["git", "log", "-n", "3"]), ["git", "log"]);
 * assert.equal(rulePrefix(["git", "-c", "core.pager=sh", "log"]), null);
 * ```
 */
export function rulePrefix(words: readonly string[]): string[] | null {
  const found = lookUp(words);
  if (!found || reachProblem(words) !== null) return null;
  return words.slice(0, found.key.split(" ").length);
}

/**
 * The forms a prefix rule starting with `words` never covers, as a person reads them, or null
 * for a data program (nothing refused). A prefix shorter than a subcommand program's key
 * (`git`) covers only the listed read-only subcommands.
 */
export function refusedForms(words: readonly string[]): string | null {
  if (SUBCOMMAND_PROGRAMS.has(words[0] ?? "") && words.length < 2) {
    const subs = [...GUARDED.keys()].filter((key) => key.startsWith(`${words[0]} `));
    return `subcommands other than ${subs.map((key) => key.split(" ")[1]).join(", ")}`;
  }
  return lookUp(words)?.guard?.refused ?? null;
}
