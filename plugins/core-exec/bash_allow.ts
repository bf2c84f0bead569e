/**
 * `tool_permission.bash_allow`: decides whether a bash line is covered, that is whether every
 * command it would run starts with an allowed prefix and nothing in it changes what a command
 * means. The line is parsed by mvdan/sh (the parser behind shfmt) and the whole tree is walked:
 * chained and piped commands, command and process substitutions wherever they sit, subshells,
 * groups and the bodies of if, while and case. Every node type is allowed by name, so a construct
 * the walk does not know is not covered rather than overlooked.
 *
 * Nothing that assigns a variable is ever covered, whatever the prefixes: bash evaluates array
 * subscripts in variable names as arithmetic (`printf -v 'a[$(cmd)]' x` runs cmd), and a
 * variable such as PATH, HOME or IFS changes what a later, allowed command does
 * (`for PATH in bin; do ls; done` runs ./bin/ls). See docs/permissions.md. The parser and its
 * tree are in _shell_tree.ts.
 * @module
 */
import {
  type GoBinaryCmd,
  type GoCallExpr,
  type GoCaseClause,
  type GoDblQuoted,
  type GoFile,
  type GoIfClause,
  type GoNode,
  type GoParamExp,
  type GoRedirect,
  type GoSlice,
  type GoStmt,
  type GoStmts,
  goString,
  type GoTimeClause,
  type GoWhileClause,
  type GoWord,
  hasControlCharacter,
  itemsOf,
  jsString,
  kindOf,
  literalAssign,
  literalWord,
  loadShell,
  parseMessage,
} from "./_shell_tree.ts";

/** The check's outcome: covered, or not covered with the reason (the call is then denied). */
export type BashAllowVerdict = { allowed: true } | { allowed: false; reason: string };

/** Parts quoted in a reason are cut to this many characters: a reason is one short line. */
const MAX_PART_CHARS = 80;

/**
 * Commands never covered, whatever the prefixes, with why: they assign variables (and so
 * evaluate subscripts) or change how later commands are found and run. Matched on the command
 * word as written once quotes are removed (`'read'` is `read`).
 */
const NEVER_COVERED: ReadonlyMap<string, string> = new Map([
  ...[
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "declare",
    "typeset",
    "export",
    "local",
    "readonly",
    "let",
    "unset",
    "wait", // wait -p NAME
  ].map((name) => [name, "it assigns variables"] as const),
  ...["set", "shopt", "enable", "hash", "alias", "unalias", "trap", "bind", "complete", "compopt"]
    .map((name) => [name, "it changes how later commands run"] as const),
  ["compgen", "it evaluates its arguments"],
  ["fc", "it runs commands from the history"],
]);

/**
 * A further test of each simple command a prefix covers, given its words as bash passes them
 * (quotes removed; assignments before the command left out; `null` for a word bash computes):
 * a reason refuses the command, null lets it through. The always-allow rules use it to keep
 * a prefix off the forms of a program that run code or write files (always_rule.ts).
 */
export type CommandJudge = (words: readonly (string | null)[]) => string | null;

/** `test` and `[` evaluate a subscript in the variable name these operators take. */
const TEST_NAME_OPERATORS = new Set(["-v", "-R"]);

/**
 * Checks `command` against the allowed prefixes (each matched on whole words: `ls` allows
 * `ls -la`, not `lsblk`; `git status` allows `git status -s`, not `git push`). Heredocs,
 * multi-line commands, control characters and unparsable commands are never covered.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(await checkBashAllow("ls -la | cat", ["ls", "cat"]), { allowed: true });
 * assert.deepEqual(await checkBashAllow("ls; rm x", ["ls"]), {
 *   allowed: false,
 *   reason: 'bash_allow: "rm x" is not covered',
 * });
 * ```
 */
export async function checkBashAllow(
  command: string,
  prefixes: readonly string[],
  judge?: CommandJudge,
): Promise<BashAllowVerdict> {
  // Checked on the raw text: a line break would let a second command hide from a reader.
  if (/[\n\r]/.test(command)) return notCovered("multi-line commands are not allowed");
  // Bash and the parser may split words differently on control characters: refuse them.
  if (hasControlCharacter(command)) return notCovered("control characters are not allowed");
  const shell = await loadShell();
  let file: GoFile;
  try {
    file = shell.parse(command);
  } catch (error) {
    const message = parseMessage(error);
    // A heredoc's body needs a line break, so one on a single line never parses.
    if (message.includes("here-document")) return notCovered("heredocs are not allowed");
    return notCovered(`cannot parse the command: ${message}`);
  }
  const scan: Scan = {
    source: new TextEncoder().encode(command),
    prefixes: indexPrefixes(prefixes),
    redirectOps: shell.redirectOps,
    judge: judge ?? null,
    refusal: null,
    hasHeredoc: false,
    commands: 0,
  };
  scanStmts(scan, file.Stmts);
  if (scan.hasHeredoc) return notCovered("heredocs are not allowed");
  if (scan.refusal) return notCovered(scan.refusal);
  if (scan.commands === 0) return notCovered("no command");
  return { allowed: true };
}

/** Prefixes as words (Go byte strings), grouped by their first word for one lookup per command. */
function indexPrefixes(prefixes: readonly string[]): Map<string, string[][]> {
  const index = new Map<string, string[][]>();
  for (const prefix of prefixes) {
    const words = prefix.trim().split(/\s+/).map(goString);
    if (words[0] === "") continue;
    index.set(words[0]!, [...index.get(words[0]!) ?? [], words]);
  }
  return index;
}

function notCovered(problem: string): BashAllowVerdict {
  return { allowed: false, reason: `bash_allow: ${problem}` };
}

/** What a walk found: the first part that is not covered, and how many commands it saw. */
interface Scan {
  source: Uint8Array;
  /** Allowed prefixes by first word. */
  prefixes: ReadonlyMap<string, readonly string[][]>;
  redirectOps: ReadonlyMap<number, string>;
  judge: CommandJudge | null;
  refusal: string | null;
  /** A heredoc without its body (`cat <<EOF`) parses; with one, the line break is refused. */
  hasHeredoc: boolean;
  commands: number;
}

function refuse(scan: Scan, node: GoNode, detail = ""): void {
  scan.refusal ??= `${quotePart(scan, node)} is not covered${detail ? `: ${detail}` : ""}`;
}

function quotePart(scan: Scan, node: GoNode): string {
  const text = sourceOf(scan, node);
  return `"${text.length > MAX_PART_CHARS ? text.slice(0, MAX_PART_CHARS) + "…" : text}"`;
}

/** A node's source text; the parser counts offsets in UTF-8 bytes. */
function sourceOf(scan: Scan, node: GoNode): string {
  return new TextDecoder().decode(scan.source.subarray(node.Pos().Offset(), node.End().Offset()));
}

function scanStmts(scan: Scan, stmts: GoSlice<GoStmt>): void {
  for (let i = 0; i < stmts.$length; i++) scanStmt(scan, stmts.$array[stmts.$offset + i]!);
}

function scanStmt(scan: Scan, stmt: GoStmt): void {
  if (stmt.Background) refuse(scan, stmt, "background jobs are not checked");
  if (stmt.Coprocess) refuse(scan, stmt, "coprocesses are not checked");
  for (const redirect of itemsOf(stmt.Redirs)) scanRedirect(scan, redirect);
  if (kindOf(stmt.Cmd)) scanCommand(scan, stmt.Cmd);
}

function scanCommand(scan: Scan, cmd: GoNode): void {
  switch (kindOf(cmd)) {
    case "CallExpr":
      return scanCall(scan, cmd as GoCallExpr);
    case "BinaryCmd": {
      // &&, ||, | and |&: both sides run, both are checked.
      const { X, Y } = cmd as GoBinaryCmd;
      scanStmt(scan, X);
      return scanStmt(scan, Y);
    }
    case "Subshell":
    case "Block":
      return scanStmts(scan, (cmd as GoStmts).Stmts);
    case "IfClause":
      for (let clause = cmd as GoIfClause; kindOf(clause); clause = clause.Else) {
        scanStmts(scan, clause.Cond);
        scanStmts(scan, clause.Then);
      }
      return;
    case "WhileClause": {
      const { Cond, Do } = cmd as GoWhileClause;
      scanStmts(scan, Cond);
      return scanStmts(scan, Do);
    }
    case "ForClause":
      // for NAME in, select NAME in and for ((…)) all assign: `for PATH in bin` reroutes ls.
      return refuse(scan, cmd, "loops that assign a variable are never covered");
    case "CaseClause": {
      const { Word, Items } = cmd as GoCaseClause;
      scanWord(scan, Word);
      for (const item of itemsOf(Items)) {
        for (const pattern of itemsOf(item.Patterns)) scanWord(scan, pattern);
        scanStmts(scan, item.Stmts);
      }
      return;
    }
    case "TimeClause": {
      const { Stmt } = cmd as GoTimeClause;
      return kindOf(Stmt) ? scanStmt(scan, Stmt) : undefined;
    }
    case "FuncDecl":
      return refuse(scan, cmd, "function definitions are never covered");
    case "ArithmCmd":
    case "LetClause":
      // Arithmetic assigns and evaluates array subscripts in values: `a[$(cmd)]` runs cmd.
      return refuse(scan, cmd, "arithmetic is never covered");
    case "TestClause":
      return refuse(scan, cmd, "[[ ]] evaluates arithmetic and is never covered");
    case "DeclClause":
      return refuse(scan, cmd, "it assigns variables");
    case "CoprocClause":
      return refuse(scan, cmd, "coprocesses are not checked");
    default:
      return refuse(scan, cmd, "this construct is not checked");
  }
}

function scanCall(scan: Scan, call: GoCallExpr): void {
  scan.commands++;
  const assigns = itemsOf(call.Assigns);
  const args = itemsOf(call.Args);
  if (args.length === 0) return refuse(scan, call, "assignments are never covered");
  // Assignments before the command (`LC_ALL=C ls`) count as words: only a prefix spelling
  // them out covers them, since variables such as PATH, BASH_ENV or LD_PRELOAD run code.
  const words = [
    ...assigns.map((assign) => literalAssign(assign)),
    ...args.map((word) => literalWord(word)),
  ];
  const isPrefixed = words[0] !== null &&
    (scan.prefixes.get(words[0]!) ?? []).some((prefix) =>
      prefix.length <= words.length && prefix.every((word, i) => words[i] === word)
    );
  const argWords = words.slice(assigns.length);
  const builtinProblem = builtinProblemOf(argWords);
  if (builtinProblem) refuse(scan, call, builtinProblem);
  else if (!isPrefixed) {
    const detail = assigns.length > 0
      ? "an assignment before a command is covered only when a prefix spells it out"
      : words[0] === null
      ? "its command name is an expansion"
      : "";
    refuse(scan, call, detail);
  } else if (scan.judge) {
    const problem = scan.judge(argWords.map((word) => word === null ? null : jsString(word)));
    if (problem) refuse(scan, call, problem);
  }
  for (const assign of assigns) {
    if (kindOf(assign.Value)) scanWord(scan, assign.Value);
    if (kindOf(assign.Index) || kindOf(assign.Array)) {
      refuse(scan, assign, "array assignments are never covered");
    }
  }
  for (const word of args) scanWord(scan, word);
}

/**
 * Why a command is not covered even when a prefix names it: builtins that assign variables or
 * change later commands, and the forms of printf and test that assign or evaluate a subscript.
 * A computed argument counts as one of those forms: `$_` can hold `-v`.
 */
function builtinProblemOf(words: readonly (string | null)[]): string | null {
  // `command` and `builtin` run the builtin they name: judge that one (`command -p read x`).
  let start = 0;
  while (words[start] === "command" || words[start] === "builtin") {
    start++;
    while (words[start]?.startsWith("-")) start++;
  }
  const [name, ...args] = words.slice(start);
  if (name === undefined) return null;
  if (name === null) return start > 0 ? "the builtin it runs is computed" : null;
  const problem = NEVER_COVERED.get(name);
  if (problem) return problem;
  if (name === "printf" && (args[0] === null || args[0]?.startsWith("-"))) {
    return "printf options are never covered (printf -v assigns a variable)";
  }
  if (
    (name === "test" || name === "[") && args.some((a) => a === null || TEST_NAME_OPERATORS.has(a))
  ) {
    return `${name} with -v, -R or a computed argument is never covered (it evaluates subscripts)`;
  }
  return null;
}

function scanWord(scan: Scan, word: GoWord): void {
  const parts = word.Parts;
  for (let i = 0; i < parts.$length; i++) scanWordPart(scan, parts.$array[parts.$offset + i]!);
}

function scanWordPart(scan: Scan, part: GoNode): void {
  switch (kindOf(part)) {
    case "Lit":
    case "SglQuoted":
      return;
    case "DblQuoted":
      for (const inner of itemsOf((part as GoDblQuoted).Parts)) scanWordPart(scan, inner);
      return;
    case "ParamExp": {
      // Plain `$x`, `${x}` and `${#x}` only: operators hide defaults that assign (`${x:=…}`)
      // or run substitutions, `${!x}` and `${x@P}` evaluate a variable's text, and subscripts
      // are arithmetic.
      const exp = part as GoParamExp;
      const isPlain = !exp.Excl && !exp.Width && !kindOf(exp.Index) && !kindOf(exp.Slice) &&
        !kindOf(exp.Repl) && !kindOf(exp.Exp) && !exp.Names;
      return isPlain ? undefined : refuse(scan, part, "parameter operators are not checked");
    }
    // A substitution runs a command whose output becomes code's input (arguments, a file name):
    // never covered, whatever runs inside (the issue's rule; docs/permissions.md).
    case "CmdSubst":
      return refuse(scan, part, "command substitution is never covered");
    case "ProcSubst":
      return refuse(scan, part, "process substitution is never covered");
    case "ArithmExp":
      return refuse(scan, part, "arithmetic is never covered");
    default:
      return refuse(scan, part, "this expansion is not checked");
  }
}

function scanRedirect(scan: Scan, redirect: GoRedirect): void {
  const op = scan.redirectOps.get(redirect.Op) ?? "?";
  if (op === "<<" || op === "<<-") {
    scan.hasHeredoc = true;
    return;
  }
  if (kindOf(redirect.N) && !/^\d+$/.test(redirect.N.Value)) {
    return refuse(scan, redirect, "named file descriptors are not checked");
  }
  const word = redirect.Word;
  if (!kindOf(word)) return refuse(scan, redirect);
  const target = literalWord(word);
  switch (op) {
    case "<<<":
      return scanWord(scan, word); // a here-string is data; only its substitutions run
    case "<": {
      if (target === null) {
        const parts = itemsOf(word.Parts);
        const isProcess = parts.length === 1 && kindOf(parts[0]!) === "ProcSubst";
        return isProcess ? scanWord(scan, word) : refuse(scan, redirect, "its file is computed");
      }
      // Bash itself opens network connections for these paths.
      if (/^\/dev\/(tcp|udp)\//.test(target)) refuse(scan, redirect, "it opens a connection");
      return;
    }
    case "<&":
    case ">&":
      // Duplicating or closing a descriptor (`2>&1`, `>&-`); `>&file` writes a file.
      if (target !== null && /^(\d+|-)$/.test(target)) return;
      if (op === "<&") return refuse(scan, redirect);
      return target === "/dev/null" ? undefined : refuse(scan, redirect, "it writes a file");
    default:
      // >, >>, >|, <>, &>, &>>: they create or change files; /dev/null discards.
      if (target === "/dev/null") return;
      return refuse(scan, redirect, "it writes a file");
  }
}
