/**
 * Which arguments the read-only git tool passes on. Each subcommand has an allowlist of options
 * spelled out in full (git accepts abbreviations, so `--outp` could mean `--output`); anything
 * that writes, runs a program, reads outside the repository or changes branches is refused with
 * the reason. Arguments that do not start with `-` are revisions and paths, which only read.
 * @module
 */

/** The read-only subcommands and the git command each runs. */
export const GIT_SUBCOMMANDS = {
  status: "status",
  diff: "diff",
  log: "log",
  branch: "branch",
  show: "show",
  rev_parse: "rev-parse",
} as const;

/** A subcommand as the model names it. */
export type GitSubcommand = keyof typeof GIT_SUBCOMMANDS;

/** `flag`: no value; `value`: needs one (`--x=v`, `--x v`, `-xv`); `optional`: `--x[=v]`. */
type Arity = "flag" | "value" | "optional";

interface OptionTable {
  long: Readonly<Record<string, Arity>>;
  short: Readonly<Record<string, Arity>>;
  /** `-<n>`: a commit count for log and show, a stage for diff. */
  numeric?: boolean;
}

interface Refusal {
  reason: string;
  fix: string;
}

const USE_RUN_COMMAND = "remove it; for that, use run_command, which asks first";

const WRITES_FILE = { reason: "it writes to a file", fix: USE_RUN_COMMAND };
const RUNS_PROGRAM = { reason: "it runs a program", fix: USE_RUN_COMMAND };
const SETS_CONFIG = { reason: "it sets git configuration", fix: USE_RUN_COMMAND };
const OTHER_REPO = {
  reason: "it points git at another repository or worktree",
  fix: "remove it; git runs in the worktree's own repository",
};
/** Submodules are repositories with their own configuration, which is not vetted here. */
const IN_SUBMODULES = {
  reason: "it runs git inside submodules under their own configuration",
  fix: USE_RUN_COMMAND,
};

/** Refused whatever the subcommand, with why. */
const REFUSED_LONG: Readonly<Record<string, Refusal>> = {
  "--output": WRITES_FILE,
  "--output-directory": WRITES_FILE,
  "--ext-diff": { reason: "it runs an external diff program", fix: "remove it" },
  "--textconv": { reason: "it runs text-conversion filter programs", fix: "remove it" },
  "--config": SETS_CONFIG,
  "--config-env": SETS_CONFIG,
  "--git-dir": OTHER_REPO,
  "--work-tree": OTHER_REPO,
  "--namespace": OTHER_REPO,
  "--super-prefix": OTHER_REPO,
  "--paginate": { reason: "it starts a pager", fix: "remove it; output is returned directly" },
  "--no-index": {
    reason: "it compares files outside the repository",
    fix: "remove it; read files with file_read",
  },
  "--show-signature": { reason: "it runs gpg to verify signatures", fix: USE_RUN_COMMAND },
  "--stdin": { reason: "it reads standard input, which is closed here", fix: "remove it" },
  "--submodule": IN_SUBMODULES,
  "--ignore-submodules": IN_SUBMODULES,
  "--open-files-in-pager": RUNS_PROGRAM,
  "--upload-pack": RUNS_PROGRAM,
  "--receive-pack": RUNS_PROGRAM,
};

const REFUSED_SHORT: Readonly<Record<string, Refusal>> = {
  o: WRITES_FILE,
  c: {
    reason: "it would set git configuration",
    fix: "remove it; for a combined merge diff use --cc",
  },
};

const CHANGES_BRANCHES = {
  reason: "it creates, deletes, renames or reconfigures branches",
  fix: "remove it; git here only reads: use run_command, which asks first",
};

/** branch options that change something; `-c` is copy here, not configuration. */
const BRANCH_REFUSED_LONG: Readonly<Record<string, Refusal>> = {
  "--delete": CHANGES_BRANCHES,
  "--move": CHANGES_BRANCHES,
  "--copy": CHANGES_BRANCHES,
  "--force": CHANGES_BRANCHES,
  "--set-upstream-to": CHANGES_BRANCHES,
  "--set-upstream": CHANGES_BRANCHES,
  "--unset-upstream": CHANGES_BRANCHES,
  "--track": CHANGES_BRANCHES,
  "--no-track": CHANGES_BRANCHES,
  "--create-reflog": CHANGES_BRANCHES,
  "--recurse-submodules": CHANGES_BRANCHES,
  "--edit-description": {
    reason: "it opens an editor to change a branch description",
    fix: USE_RUN_COMMAND,
  },
};

const BRANCH_REFUSED_SHORT: Readonly<Record<string, Refusal>> = {
  d: CHANGES_BRANCHES,
  D: CHANGES_BRANCHES,
  m: CHANGES_BRANCHES,
  M: CHANGES_BRANCHES,
  c: CHANGES_BRANCHES,
  C: CHANGES_BRANCHES,
  f: CHANGES_BRANCHES,
  u: CHANGES_BRANCHES,
  t: CHANGES_BRANCHES,
};

/** Options of the diff machinery, shared by diff, log and show. */
const DIFF_LONG: Readonly<Record<string, Arity>> = {
  ...flags(
    "--patch --no-patch --raw --patch-with-raw --patch-with-stat --compact-summary --numstat " +
      "--shortstat --summary --name-only --name-status --no-color --no-renames --rename-empty " +
      "--no-rename-empty --check --full-index --binary --find-copies-harder " +
      "--irreversible-delete --pickaxe-all --pickaxe-regex --text --ignore-cr-at-eol " +
      "--ignore-space-at-eol --ignore-space-change --ignore-all-space --ignore-blank-lines " +
      "--function-context --no-ext-diff --no-textconv --no-prefix --default-prefix " +
      "--ita-invisible-in-index --ita-visible-in-index --minimal --patience --histogram " +
      "--indent-heuristic --no-indent-heuristic --no-relative --no-abbrev --null",
  ),
  ...optional(
    "--stat --dirstat --word-diff --abbrev --find-renames --find-copies " +
      "--break-rewrites --relative",
  ),
  ...values(
    "--unified --stat-width --stat-name-width --stat-graph-width --stat-count " +
      "--word-diff-regex --diff-filter --anchored --diff-algorithm --inter-hunk-context " +
      "--ignore-matching-lines --src-prefix --dst-prefix --line-prefix --output-indicator-new " +
      "--output-indicator-old --output-indicator-context --find-object --skip-to --rotate-to",
  ),
};

const DIFF_SHORT: Readonly<Record<string, Arity>> = {
  p: "flag",
  u: "flag",
  s: "flag",
  z: "flag",
  R: "flag",
  a: "flag",
  b: "flag",
  w: "flag",
  W: "flag",
  D: "flag",
  U: "value",
  M: "optional",
  C: "optional",
  B: "optional",
  l: "value",
  S: "value",
  G: "value",
  I: "value",
};

/** Options of the revision walk and commit formatting, shared by log and show. */
const LOG_LONG: Readonly<Record<string, Arity>> = {
  ...flags(
    "--all-match --invert-grep --regexp-ignore-case --basic-regexp --extended-regexp " +
      "--fixed-strings --perl-regexp --merges --no-merges --no-min-parents --no-max-parents " +
      "--first-parent --exclude-first-parent-only --all --not --reverse --oneline " +
      "--abbrev-commit --no-abbrev-commit --no-decorate --clear-decorations --source --graph " +
      "--relative-date --follow --topo-order --date-order --author-date-order --left-right " +
      "--left-only --right-only --cherry-pick --cherry-mark --cherry --boundary " +
      "--ancestry-path --simplify-by-decoration --full-history --dense --sparse " +
      "--simplify-merges --show-pulls --do-walk --walk-reflogs --reflog --single-worktree " +
      "--children --parents --no-expand-tabs --no-notes --mailmap --no-mailmap --use-mailmap " +
      "--no-use-mailmap --log-size --full-diff --cc --dd --remerge-diff --no-diff-merges " +
      "--combined-all-paths",
  ),
  ...optional(
    "--pretty --decorate --branches --tags --remotes --no-walk --expand-tabs --notes " +
      "--show-linear-break",
  ),
  ...values(
    "--max-count --skip --since --after --until --before --since-as-filter --author " +
      "--committer --grep --grep-reflog --min-parents --max-parents --format --date --exclude " +
      "--encoding --diff-merges --glob --decorate-refs --decorate-refs-exclude",
  ),
};

const LOG_SHORT: Readonly<Record<string, Arity>> = {
  n: "value",
  i: "flag",
  E: "flag",
  F: "flag",
  P: "flag",
  m: "flag",
  g: "flag",
  L: "value",
};

const TABLES: Readonly<Record<GitSubcommand, OptionTable>> = {
  status: {
    long: {
      ...flags(
        "--short --branch --show-stash --long --verbose --ahead-behind --no-ahead-behind " +
          "--renames --no-renames --null --no-column",
      ),
      ...optional("--porcelain --untracked-files --ignored --find-renames"),
    },
    short: { s: "flag", b: "flag", v: "flag", z: "flag", u: "optional" },
  },
  diff: {
    long: { ...DIFF_LONG, ...flags("--cached --staged --merge-base --base --ours --theirs") },
    short: DIFF_SHORT,
    numeric: true,
  },
  log: {
    long: { ...DIFF_LONG, ...LOG_LONG },
    short: { ...DIFF_SHORT, ...LOG_SHORT },
    numeric: true,
  },
  show: {
    long: { ...DIFF_LONG, ...LOG_LONG },
    short: { ...DIFF_SHORT, ...LOG_SHORT },
    numeric: true,
  },
  branch: {
    long: {
      ...flags(
        "--list --all --remotes --verbose --show-current --ignore-case --omit-empty " +
          "--no-column --no-abbrev --no-color",
      ),
      ...optional("--abbrev --contains --no-contains --merged --no-merged"),
      ...values("--points-at --sort --format"),
    },
    short: { a: "flag", r: "flag", v: "flag", l: "flag", i: "flag" },
  },
  rev_parse: {
    long: {
      ...flags(
        "--verify --quiet --symbolic --symbolic-full-name --show-toplevel --show-prefix " +
          "--show-cdup --git-dir --git-common-dir --absolute-git-dir --is-inside-work-tree " +
          "--is-inside-git-dir --is-bare-repository --is-shallow-repository " +
          "--show-superproject-working-tree --shared-index-path --show-ref-format --all --not " +
          "--revs-only --no-revs --flags --no-flags --sq --local-env-vars",
      ),
      ...optional("--short --abbrev-ref --show-object-format --branches --tags --remotes"),
      ...values(
        "--glob --exclude --default --since --after --until --before --path-format --git-path " +
          "--disambiguate",
      ),
    },
    short: { q: "flag" },
  },
};

/**
 * branch options whose value may be the next argument: that argument is then a commit or a
 * format, not the name of a branch to create. git takes it only when it does not start with `-`.
 */
const BRANCH_TAKES_NEXT = new Set([
  "--contains",
  "--no-contains",
  "--merged",
  "--no-merged",
  "--points-at",
  "--sort",
  "--format",
]);

/** Pretty-format placeholders that verify signatures, which runs gpg. */
const SIGNATURE_PLACEHOLDER = /%G/;

/**
 * Throws a `RangeError` naming the first refused argument, why, and what to do instead.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * checkGitArgs("log", ["--oneline", "-n", "5", "--", "src"]); // fine
 * assert.throws(() => checkGitArgs("diff", ["--output=x"]), /writes to a file/);
 * ```
 */
export function checkGitArgs(subcommand: GitSubcommand, args: readonly string[]): void {
  const action = `git ${GIT_SUBCOMMANDS[subcommand]}`;
  const table = TABLES[subcommand];
  const listing = subcommand === "branch" && args.some((a) => a === "--list" || a === "-l");
  let pathsOnly = false;
  let previous = "";
  for (const arg of args) {
    const refuse = (reason: string, fix: string) =>
      new RangeError(
        `Cannot run ${action}: argument ${JSON.stringify(arg)} is refused: ${reason}: ${fix}`,
      );
    const valueOfPrevious = BRANCH_TAKES_NEXT.has(previous) && !arg.startsWith("-");
    previous = arg;
    if (arg === "--" && !pathsOnly) {
      pathsOnly = true;
      continue;
    }
    if (pathsOnly || arg === "-" || !arg.startsWith("-")) {
      if (subcommand === "branch" && !listing && !valueOfPrevious) {
        throw refuse(
          "git branch would create a branch with that name",
          "add --list to match branch names against it as a pattern; to create a branch, " +
            "use run_command, which asks first",
        );
      }
      continue;
    }
    const problem = arg.startsWith("--")
      ? checkLong(subcommand, table, arg)
      : checkShort(subcommand, table, arg);
    if (problem) throw refuse(problem.reason, problem.fix);
  }
}

function checkLong(subcommand: GitSubcommand, table: OptionTable, arg: string): Refusal | null {
  const equals = arg.indexOf("=");
  const name = equals === -1 ? arg : arg.slice(0, equals);
  const value = equals === -1 ? null : arg.slice(equals + 1);
  const arity = table.long[name];
  const refused = refusedLong(subcommand, name);
  if (refused && !(arity === "flag" && value === null)) return refused;
  if (name.startsWith("--exec")) return RUNS_PROGRAM;
  if (arity === undefined) {
    const abbreviated = Object.keys({ ...REFUSED_LONG, ...BRANCH_REFUSED_LONG })
      .find((full) => name.length > 3 && full.startsWith(name));
    if (abbreviated) {
      const full = refusedLong(subcommand, abbreviated) ?? REFUSED_LONG[abbreviated]!;
      return {
        reason: `it abbreviates ${abbreviated}, which ${full.reason.slice(3)}`,
        fix: full.fix,
      };
    }
    return notAllowed(subcommand, name);
  }
  if (arity === "flag" && value !== null) {
    return {
      reason: `${name} takes no value for git ${GIT_SUBCOMMANDS[subcommand]}`,
      fix: `write it as ${name}`,
    };
  }
  if (value !== null && (name === "--format" || name === "--pretty") && subcommand !== "branch") {
    if (SIGNATURE_PLACEHOLDER.test(value)) {
      return {
        reason: "%G placeholders verify signatures, which runs gpg",
        fix: "remove the %G placeholders",
      };
    }
  }
  return null;
}

function refusedLong(subcommand: GitSubcommand, name: string): Refusal | undefined {
  return (subcommand === "branch" ? BRANCH_REFUSED_LONG[name] : undefined) ?? REFUSED_LONG[name];
}

/** A short option or a bundle of them (`-sb`); a value-taking letter takes the rest (`-n5`). */
function checkShort(subcommand: GitSubcommand, table: OptionTable, arg: string): Refusal | null {
  if (table.numeric && /^-\d+$/.test(arg)) return null;
  for (let i = 1; i < arg.length; i++) {
    const letter = arg[i]!;
    const refused = (subcommand === "branch" ? BRANCH_REFUSED_SHORT : REFUSED_SHORT)[letter];
    if (refused) return refused;
    const arity = table.short[letter];
    if (arity === undefined) return notAllowed(subcommand, `-${letter}`);
    if (arity !== "flag") return null;
  }
  return null;
}

function notAllowed(subcommand: GitSubcommand, name: string): Refusal {
  const action = `git ${GIT_SUBCOMMANDS[subcommand]}`;
  return {
    reason: `${name} is not an option ${action} allows here (options must be spelled out in ` +
      `full)`,
    fix: `remove it or write the full option name; for anything else use run_command, which ` +
      `asks first`,
  };
}

function flags(names: string): Record<string, Arity> {
  return table(names, "flag");
}

function optional(names: string): Record<string, Arity> {
  return table(names, "optional");
}

function values(names: string): Record<string, Arity> {
  return table(names, "value");
}

function table(names: string, arity: Arity): Record<string, Arity> {
  return Object.fromEntries(names.split(/\s+/).map((name) => [name, arity]));
}
