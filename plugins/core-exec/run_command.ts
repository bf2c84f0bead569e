/**
 * run_command: one bash command line in the worktree, its whole process group bounded by a
 * timeout and the turn's cancel; `tool_permission.bash_allow` restricts and auto-approves it.
 * @module
 */
import {
  commandIsolation,
  formatProcessResult,
  isAbsolute,
  join,
  LiveTail,
  type PermissionContext,
  relative,
  type Resolution,
  resolve,
  runSandboxed,
  type Static,
  type ToolArgs,
  type ToolContext,
  type ToolSpec,
  Type,
} from "../../src/plugins/api.ts";
import { describeCommandRule, proposeRule, ruleCovers } from "./always_rule.ts";
import { checkBashAllow } from "./bash_allow.ts";
import DESCRIPTION from "./run_command.md" with { type: "text" };

const parameters = Type.Object({
  command: Type.String({
    description: "Bash command line to run, e.g. `npm test -- --watch=false`",
  }),
  cwd: Type.Optional(Type.String({
    description: "Directory to run in, relative to the worktree; default the worktree root",
  })),
  timeout: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Seconds before the command and its child processes are killed; " +
      "default the tool_timeout setting",
  })),
  idle_timeout: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Seconds without any output after which the command is stopped (a hung " +
      "prompt); default the tool_idle_timeout setting (0: never)",
  })),
});

/** run_command's registration: an exec tool gated by `tool_permission.bash`. */
export const runCommandSpec = {
  name: "run_command",
  description: DESCRIPTION,
  parameters,
  category: "exec",
  permission: "bash",
  // setsid puts each command in its own process group, so a cancel reaches its children.
  deno: { run: ["setsid", "bash"] },
  permissionFn: resolveRunPermission,
  // The REPL's `a` and `replio approve --always-prefix`: never wider than what was seen.
  approval: {
    propose: (args) => proposeRule(String(args.command ?? "")),
    matches: (args, pattern) => ruleCovers(String(args.command ?? ""), pattern),
    describe: describeCommandRule,
  },
  pathArg: "cwd",
  keyArg: "command",
  echo: true,
  short: "Run a shell command with a timeout",
  aliases: ["bash", "exec"],
  isolation: commandIsolation,
} satisfies ToolSpec<typeof parameters>;

/**
 * Runs the command line and returns its exit line and output (head and tail if long); while
 * it runs, its last lines go to `ctx.progress`.
 */
export async function runCommand(
  { command, cwd, timeout, idle_timeout }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  if (command.trim() === "") {
    throw new TypeError("Cannot run an empty command: pass the shell command line to run");
  }
  const dir = cwd === undefined ? ctx.worktree : await ctx.resolvePath(cwd, "read");
  assertDirectory(dir, cwd ?? ".");
  const live = ctx.progress ? new LiveTail(ctx.progress) : null;
  // Sandboxed where it works; the whole output is kept in the session's store when lines are left out (tool_output).
  const result = await runSandboxed(ctx, {
    command,
    cwd: dir,
    timeoutMs: (timeout ?? ctx.config.get("tool_timeout")) * 1000,
    idleTimeoutMs: (idle_timeout ?? ctx.config.get("tool_idle_timeout")) * 1000,
    signal: ctx.signal,
    config: ctx.config,
    onBytes: live ? (chunk) => live.push(chunk) : undefined,
  }).finally(() => live?.stop());
  // The registry turns the abort into `Error: cancelled by the user`.
  if (result.cancelled) ctx.signal.throwIfAborted();
  const text = formatProcessResult(result);
  return result.sandboxNote ? `${text}\n${result.sandboxNote}` : text;
}

/** Synchronous: a few microseconds, where an async stat is a round trip to another thread. */
function assertDirectory(dir: string, shown: string): void {
  try {
    if (Deno.statSync(dir).isDirectory) return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error(`Cannot run in "${shown}": no such directory: pass an existing cwd or omit it`);
  }
  throw new Error(`Cannot run in "${shown}": not a directory: pass a directory as cwd`);
}

/**
 * Applies `tool_permission.bash_allow` (docs/permissions.md). An empty list leaves the base
 * action. A non-empty list is the whole of what run_command may run: a covered command runs
 * without asking (inside the worktree; with a cwd outside it, the base action decides), and
 * anything else is denied, even when `tool_permission.bash` is allow or `--yes` is given.
 */
async function resolveRunPermission(
  args: ToolArgs,
  ctx: PermissionContext,
): Promise<Resolution> {
  const prefixes = ctx.toolPermission.bash_allow;
  if (!Array.isArray(prefixes) || prefixes.length === 0) return ctx.base;
  const verdict = await checkBashAllow(String(args.command ?? ""), prefixes);
  if (!verdict.allowed) {
    return {
      action: "deny",
      reason: `${verdict.reason}: ${nextStep(prefixes)}`,
      setting: "tool_permission.bash_allow",
    };
  }
  const { cwd } = args;
  if (typeof cwd === "string" && !(await isInsideWorktree(cwd, ctx.worktree))) {
    return { ...ctx.base, reason: `bash_allow: cwd "${cwd}" is outside the worktree` };
  }
  // Covered: the list only restricts; whether it asks is still tool_permission.bash's call.
  return {
    ...ctx.base,
    reason: `${ctx.base.reason}; bash_allow covers it`,
    setting: "tool_permission.bash_allow",
  };
}

/** Prefixes named in a denial; the rest are elided so the reason stays one line. */
const SHOWN_PREFIXES = 8;

/** What the model should do instead: run what the list covers, or hand the command over. */
function nextStep(prefixes: readonly string[]): string {
  const named = prefixes.map((prefix) => prefix.trim()).filter((prefix) => prefix !== "");
  if (named.length === 0) return "the list names no command: ask the user to run it";
  const shown = named.slice(0, SHOWN_PREFIXES).map((prefix) => `"${prefix}"`).join(", ") +
    (named.length > SHOWN_PREFIXES ? ", …" : "");
  return `use only commands that start with ${shown} (no assignments, loops or arithmetic), ` +
    `or ask the user to run it`;
}

/** Whether `cwd` resolves inside the worktree; `~` and symlinks leading out count as outside. */
async function isInsideWorktree(cwd: string, worktree: string): Promise<boolean> {
  if (cwd.startsWith("~")) return false;
  let dir = isAbsolute(cwd) ? resolve(cwd) : join(worktree, cwd);
  try {
    dir = await Deno.realPath(dir);
  } catch (error) {
    // A directory that does not exist (or may not be read) fails later in the handler.
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable)) {
      throw error;
    }
  }
  const rel = relative(worktree, dir);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
