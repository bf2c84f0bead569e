/**
 * `tool_permission.bash_allow`: decides whether every command a bash line would run starts with
 * an allowed prefix. The line is parsed by mvdan/sh (the parser behind shfmt) and the whole tree
 * is walked: chained and piped commands, command and process substitutions wherever they sit,
 * subshells, groups and the bodies of if, while, for and case. Every node type is allowed by
 * name, so a construct the walk does not know is refused rather than overlooked.
 *
 * The parser is the `mvdan-sh` package (mvdan/sh compiled to JavaScript): `sh-syntax`, its WASM
 * build, returns statements whose commands and word parts carry positions only, not their kind.
 * @module
 */

/** The check's outcome: allowed, refused (the base action stands) or rejected (denied). */
export type BashAllowVerdict =
  | { allowed: true }
  | { allowed: false; hard: boolean; reason: string };

/** Parts quoted in a reason are cut to this many characters: a reason is one short line. */
const MAX_PART_CHARS = 80;

/**
 * Checks `command` against the allowed prefixes (each matched on whole words: `ls` allows
 * `ls -la`, not `lsblk`; `git status` allows `git status -s`, not `git push`). Heredocs,
 * multi-line commands, control characters and unparsable commands are rejected outright.
 */
export async function checkBashAllow(
  command: string,
  prefixes: readonly string[],
): Promise<BashAllowVerdict> {
  // Checked on the raw text: a line break would let a second command hide from a reader.
  if (/[\n\r]/.test(command)) return reject("multi-line commands are not allowed");
  // Bash and the parser may split words differently on control characters: refuse them.
  if (hasControlCharacter(command)) return reject("control characters are not allowed");
  const shell = await loadShell();
  let file: ShFile;
  try {
    file = shell.parse(command);
  } catch (error) {
    const message = parseMessage(error);
    // A heredoc's body needs a line break, so one on a single line never parses.
    if (message.includes("here-document")) return reject("heredocs are not allowed");
    return reject(`cannot parse the command: ${message}`);
  }
  const scan: Scan = {
    source: new TextEncoder().encode(command),
    prefixes: prefixes.map((prefix) => prefix.trim().split(/\s+/)).filter((p) => p[0] !== ""),
    redirectOps: shell.redirectOps,
    nodeType: shell.nodeType,
    refusal: null,
    rejection: null,
    commands: 0,
  };
  scanStmts(scan, file.Stmts);
  if (scan.rejection) return reject(scan.rejection);
  if (scan.refusal) return { allowed: false, hard: false, reason: `bash_allow: ${scan.refusal}` };
  if (scan.commands === 0) return { allowed: false, hard: false, reason: "bash_allow: no command" };
  return { allowed: true };
}

/** Tab is the one control character bash and the parser read alike (a blank). */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

function reject(problem: string): BashAllowVerdict {
  return { allowed: false, hard: true, reason: `bash_allow: ${problem}` };
}

function parseMessage(error: unknown): string {
  // mvdan/sh throws Go errors: objects with an Error() method, e.g. `src:1:6: reached EOF…`.
  if (typeof error === "object" && error !== null && "Error" in error) {
    const text = (error as { Error(): string }).Error();
    return text.replace(/^src:/, "");
  }
  throw error;
}

// The subset of mvdan/sh's tree (GopherJS objects: nil is null, slices are arrays) we read.
interface ShPos {
  Offset(): number;
}
interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
interface ShFile {
  Stmts: ShStmt[];
}
interface ShStmt extends ShNode {
  Cmd: ShNode | null;
  Background: boolean;
  Coprocess: boolean;
  Redirs: ShRedirect[];
}
interface ShRedirect extends ShNode {
  Op: number;
  N: ShLit | null;
  Word: ShWord | null;
}
interface ShWord extends ShNode {
  Parts: ShNode[];
}
interface ShLit extends ShNode {
  Value: string;
}
interface ShSglQuoted extends ShNode {
  Value: string;
  Dollar: boolean;
}
interface ShDblQuoted extends ShNode {
  Parts: ShNode[];
  Dollar: boolean;
}
interface ShParamExp extends ShNode {
  Excl: boolean;
  Width: boolean;
  Index: unknown;
  Slice: unknown;
  Repl: unknown;
  Exp: unknown;
  Names: number;
}
interface ShCmdSubst extends ShNode {
  Stmts: ShStmt[];
  Backquotes: boolean;
}
interface ShStmts extends ShNode {
  Stmts: ShStmt[];
}
interface ShAssign extends ShNode {
  Append: boolean;
  Naked: boolean;
  Name: ShLit | null;
  Index: unknown;
  Value: ShWord | null;
  Array: unknown;
}
interface ShCallExpr extends ShNode {
  Assigns: ShAssign[];
  Args: ShWord[];
}
interface ShBinaryCmd extends ShNode {
  X: ShStmt;
  Y: ShStmt;
}
interface ShIfClause extends ShNode {
  Cond: ShStmt[];
  Then: ShStmt[];
  Else: ShIfClause | null;
}
interface ShWhileClause extends ShNode {
  Cond: ShStmt[];
  Do: ShStmt[];
}
interface ShForClause extends ShNode {
  Select: boolean;
  Loop: ShNode;
  Do: ShStmt[];
}
interface ShWordIter extends ShNode {
  Items: ShWord[];
}
interface ShCaseClause extends ShNode {
  Word: ShWord;
  Items: { Patterns: ShWord[]; Stmts: ShStmt[] }[];
}
interface ShTimeClause extends ShNode {
  Stmt: ShStmt | null;
}

/** The loaded parser: `parse` throws mvdan/sh's error, `redirectOps` names operator codes. */
interface Shell {
  parse(source: string): ShFile;
  nodeType(node: ShNode): string;
  redirectOps: ReadonlyMap<number, string>;
}

/** Redirection operators bash knows; the parser codes them as numbers, learnt at load. */
const REDIRECT_OPS = [">", ">>", "<", "<>", "<&", ">&", ">|", "<<<", "&>", "&>>"] as const;

let shellLoading: Promise<Shell> | undefined;

/** Loads mvdan/sh on first use: 1.5 MB of JavaScript that start-up must not pay for. */
function loadShell(): Promise<Shell> {
  return shellLoading ??= (async () => {
    const { syntax } = (await import("mvdan-sh")).default as {
      syntax: {
        NewParser(): { Parse(source: string, name: string): ShFile };
        NodeType(node: ShNode): string;
      };
    };
    // One parser serves every call: Parse is synchronous, and a new parser costs 3 ms.
    const parser = syntax.NewParser();
    const parse = (source: string) => parser.Parse(source, "src");
    // Codes are the Go enum's order, which a new parser version may change: read them back.
    const probe = REDIRECT_OPS.map((op) => `: ${op}x`).join("; ") + "\n: <<x\nx\n: <<-x\nx\n";
    const names = [...REDIRECT_OPS, "<<", "<<-"];
    const redirectOps = new Map<number, string>();
    parse(probe).Stmts.forEach((stmt, i) => {
      const op = stmt.Redirs[0]?.Op;
      const name = names[i];
      if (op === undefined || name === undefined) throw new Error("mvdan-sh: unexpected tree");
      redirectOps.set(op, name);
    });
    return { parse, nodeType: syntax.NodeType, redirectOps };
  })();
}

/** What a walk found: the first refused part and the first hard rejection. */
interface Scan {
  source: Uint8Array;
  prefixes: string[][];
  redirectOps: ReadonlyMap<number, string>;
  nodeType(node: ShNode): string;
  refusal: string | null;
  rejection: string | null;
  commands: number;
}

function refuse(scan: Scan, node: ShNode, detail = ""): void {
  scan.refusal ??= `${quotePart(scan, node)} is not allowed${detail ? `: ${detail}` : ""}`;
}

function quotePart(scan: Scan, node: ShNode): string {
  const text = sourceOf(scan, node);
  return `"${text.length > MAX_PART_CHARS ? text.slice(0, MAX_PART_CHARS) + "…" : text}"`;
}

/** A node's source text; the parser counts offsets in UTF-8 bytes. */
function sourceOf(scan: Scan, node: ShNode): string {
  return new TextDecoder().decode(scan.source.subarray(node.Pos().Offset(), node.End().Offset()));
}

function scanStmts(scan: Scan, stmts: readonly ShStmt[]): void {
  for (const stmt of stmts) scanStmt(scan, stmt);
}

function scanStmt(scan: Scan, stmt: ShStmt): void {
  if (stmt.Background) refuse(scan, stmt, "background jobs are not checked");
  if (stmt.Coprocess) refuse(scan, stmt, "coprocesses are not checked");
  for (const redirect of stmt.Redirs) scanRedirect(scan, redirect);
  if (stmt.Cmd) scanCommand(scan, stmt.Cmd);
}

function scanCommand(scan: Scan, cmd: ShNode): void {
  switch (scan.nodeType(cmd)) {
    case "CallExpr":
      return scanCall(scan, cmd as ShCallExpr);
    case "BinaryCmd": {
      // &&, ||, | and |&: both sides run, both are checked.
      const { X, Y } = cmd as ShBinaryCmd;
      scanStmt(scan, X);
      return scanStmt(scan, Y);
    }
    case "Subshell":
    case "Block":
      return scanStmts(scan, (cmd as ShStmts).Stmts);
    case "IfClause":
      for (let clause: ShIfClause | null = cmd as ShIfClause; clause; clause = clause.Else) {
        scanStmts(scan, clause.Cond);
        scanStmts(scan, clause.Then);
      }
      return;
    case "WhileClause": {
      const { Cond, Do } = cmd as ShWhileClause;
      scanStmts(scan, Cond);
      return scanStmts(scan, Do);
    }
    case "ForClause": {
      const loop = cmd as ShForClause;
      if (loop.Select || scan.nodeType(loop.Loop) !== "WordIter") {
        return refuse(scan, cmd, "only for … in loops are checked");
      }
      for (const word of (loop.Loop as ShWordIter).Items) scanWord(scan, word);
      return scanStmts(scan, loop.Do);
    }
    case "CaseClause": {
      const { Word, Items } = cmd as ShCaseClause;
      scanWord(scan, Word);
      for (const item of Items) {
        for (const pattern of item.Patterns) scanWord(scan, pattern);
        scanStmts(scan, item.Stmts);
      }
      return;
    }
    case "TimeClause": {
      const { Stmt } = cmd as ShTimeClause;
      return Stmt ? scanStmt(scan, Stmt) : undefined;
    }
    case "FuncDecl":
      return refuse(scan, cmd, "function declarations are not checked");
    case "ArithmCmd":
    case "LetClause":
      // Arithmetic evaluates array subscripts in variable values: `a[$(cmd)]` runs cmd.
      return refuse(scan, cmd, "arithmetic is not checked");
    case "TestClause":
      return refuse(scan, cmd, "[[ ]] evaluates arithmetic and is not checked");
    case "DeclClause":
      return refuse(scan, cmd, "declarations are not checked");
    case "CoprocClause":
      return refuse(scan, cmd, "coprocesses are not checked");
    default:
      return refuse(scan, cmd, "this construct is not checked");
  }
}

function scanCall(scan: Scan, call: ShCallExpr): void {
  scan.commands++;
  // Assignments before the command (`FOO=1 cmd`) count as words: only a prefix naming them
  // allows them, since variables such as PAGER, BASH_ENV or LD_PRELOAD run code.
  const words = [
    ...call.Assigns.map((assign) => literalAssign(scan, assign)),
    ...call.Args.map((word) => literalWord(scan, word)),
  ];
  const isAllowed = scan.prefixes.some((prefix) =>
    prefix.length <= words.length && prefix.every((word, i) => words[i] === word)
  );
  if (!isAllowed) {
    const isDynamic = call.Assigns.length === 0 && words[0] === null;
    refuse(scan, call, isDynamic ? "its command name is an expansion" : "");
  }
  for (const assign of call.Assigns) {
    if (assign.Value) scanWord(scan, assign.Value);
    if (assign.Index || assign.Array) refuse(scan, assign, "array assignments are not checked");
  }
  for (const word of call.Args) scanWord(scan, word);
}

/** A word's text when it has no expansion at all; `null` when bash would compute it. */
function literalWord(scan: Scan, word: ShWord): string | null {
  let text = "";
  for (const part of word.Parts) {
    const type = scan.nodeType(part);
    if (type === "Lit") text += (part as ShLit).Value;
    else if (type === "SglQuoted" && !(part as ShSglQuoted).Dollar) {
      text += (part as ShSglQuoted).Value;
    } else if (type === "DblQuoted" && !(part as ShDblQuoted).Dollar) {
      const inner = (part as ShDblQuoted).Parts;
      if (!inner.every((p) => scan.nodeType(p) === "Lit")) return null;
      text += inner.map((p) => (p as ShLit).Value).join("");
    } else return null;
  }
  return text;
}

function literalAssign(scan: Scan, assign: ShAssign): string | null {
  if (!assign.Name || assign.Naked || assign.Index || assign.Array) return null;
  const value = assign.Value ? literalWord(scan, assign.Value) : "";
  return value === null ? null : `${assign.Name.Value}${assign.Append ? "+=" : "="}${value}`;
}

function scanWord(scan: Scan, word: ShWord): void {
  for (const part of word.Parts) scanWordPart(scan, part);
}

function scanWordPart(scan: Scan, part: ShNode): void {
  switch (scan.nodeType(part)) {
    case "Lit":
    case "SglQuoted":
      return;
    case "DblQuoted":
      for (const inner of (part as ShDblQuoted).Parts) scanWordPart(scan, inner);
      return;
    case "ParamExp": {
      // Plain `$x`, `${x}` and `${#x}` only: operators hide defaults that run substitutions,
      // `${!x}` and `${x@P}` evaluate a variable's text, and subscripts are arithmetic.
      const exp = part as ShParamExp;
      const isPlain = !exp.Excl && !exp.Width && !exp.Index && !exp.Slice && !exp.Repl &&
        !exp.Exp && !exp.Names;
      return isPlain ? undefined : refuse(scan, part, "parameter operators are not checked");
    }
    case "CmdSubst": {
      const sub = part as ShCmdSubst;
      // Inside backquotes bash removes one level of backslashes before parsing again
      // (`\$(cmd)` becomes `$(cmd)`), where parsers can disagree: refuse any backslash there.
      if (sub.Backquotes && sourceOf(scan, sub).includes("\\")) {
        return refuse(scan, part, "backslashes inside backquotes are not checked");
      }
      return scanStmts(scan, sub.Stmts);
    }
    case "ProcSubst":
      return scanStmts(scan, (part as ShStmts).Stmts);
    case "ArithmExp":
      return refuse(scan, part, "arithmetic is not checked");
    default:
      return refuse(scan, part, "this expansion is not checked");
  }
}

function scanRedirect(scan: Scan, redirect: ShRedirect): void {
  const op = scan.redirectOps.get(redirect.Op) ?? "?";
  if (op === "<<" || op === "<<-") {
    scan.rejection ??= "heredocs are not allowed";
    return;
  }
  if (redirect.N && !/^\d+$/.test(redirect.N.Value)) {
    return refuse(scan, redirect, "named file descriptors are not checked");
  }
  const word = redirect.Word;
  if (!word) return refuse(scan, redirect);
  const target = literalWord(scan, word);
  switch (op) {
    case "<<<":
      return scanWord(scan, word); // a here-string is data; only its substitutions run
    case "<":
      if (target === null) {
        const isProcess = word.Parts.length === 1 && scan.nodeType(word.Parts[0]!) === "ProcSubst";
        return isProcess ? scanWord(scan, word) : refuse(scan, redirect, "its file is computed");
      }
      // Bash itself opens network connections for these paths.
      if (/^\/dev\/(tcp|udp)\//.test(target)) refuse(scan, redirect, "it opens a connection");
      return;
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
