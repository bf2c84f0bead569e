/**
 * run_command: one bash command line in the worktree, its whole process group bounded by a
 * timeout and the turn's cancel, auto-approved only through `tool_permission.bash_allow`.
 * @module
 */
import { type Static, Type } from "@sinclair/typebox";
import { isAbsolute, join, relative, resolve } from "node:path";
import {
  formatProcessResult,
  type PermissionContext,
  type Resolution,
  runProcess,
  type ToolArgs,
  type ToolContext,
  type ToolSpec,
} from "../../src/plugins/api.ts";
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
});

/** run_command's registration: an exec tool gated by `tool_permission.bash`. */
export const runCommandSpec = {
  name: "run_command",
  description: DESCRIPTION,
  parameters,
  category: "exec",
  permission: "bash",
  permissionFn: resolveRunPermission,
  approval: { propose: proposePrefix, matches: matchesPrefix },
  pathArg: "cwd",
  keyArg: "command",
  echo: true,
  short: "Run a shell command with a timeout",
  aliases: ["bash", "exec"],
} satisfies ToolSpec<typeof parameters>;

/** Runs the command line and returns its exit line and output (head and tail if long). */
export async function runCommand(
  { command, cwd, timeout }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  if (command.trim() === "") {
    throw new TypeError("Cannot run an empty command: pass the shell command line to run");
  }
  const dir = cwd === undefined ? ctx.worktree : await ctx.resolvePath(cwd, "read");
  await assertDirectory(dir, cwd ?? ".");
  const result = await runProcess({
    command,
    cwd: dir,
    timeoutMs: (timeout ?? ctx.config.get("tool_timeout")) * 1000,
    signal: ctx.signal,
  });
  // The registry turns the abort into `Error: cancelled by the user`.
  if (result.cancelled) ctx.signal.throwIfAborted();
  return formatProcessResult(result);
}

async function assertDirectory(dir: string, shown: string): Promise<void> {
  try {
    if ((await Deno.stat(dir)).isDirectory) return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new Error(`Cannot run in "${shown}": no such directory: pass an existing cwd or omit it`);
  }
  throw new Error(`Cannot run in "${shown}": not a directory: pass a directory as cwd`);
}

/**
 * Applies `tool_permission.bash_allow`: a command whose every part starts with an allowed prefix
 * runs without asking (inside the worktree); a part that does not keeps the base action, named
 * in the reason; heredocs, multi-line and unparsable commands are denied outright, even when
 * bash itself is allowed.
 */
async function resolveRunPermission(
  args: ToolArgs,
  ctx: PermissionContext,
): Promise<Resolution> {
  const prefixes = ctx.toolPermission.bash_allow;
  if (!Array.isArray(prefixes) || prefixes.length === 0) return ctx.base;
  const verdict = await checkBashAllow(String(args.command ?? ""), prefixes);
  if (!verdict.allowed && verdict.hard) return { action: "deny", reason: verdict.reason };
  // The list only ever approves: what it does not cover is decided as without it.
  if (ctx.base.action === "allow") return ctx.base;
  if (!verdict.allowed) return { ...ctx.base, reason: verdict.reason };
  const { cwd } = args;
  if (typeof cwd === "string" && !(await isInsideWorktree(cwd, ctx.worktree))) {
    return { ...ctx.base, reason: `bash_allow: cwd "${cwd}" is outside the worktree` };
  }
  return { action: "allow", reason: "bash_allow" };
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

/**
 * The prefix "always allow" offers for a command: the program and, when the next word is a
 * subcommand (`npm test`, `git status`), that too. Matching goes through bash_allow's parser,
 * so `npm test` never covers `npm test; rm -rf ~`.
 */
function proposePrefix(args: ToolArgs): string | null {
  const [program, next] = String(args.command ?? "").trim().split(/\s+/);
  if (!program || !/^[\w./-]+$/.test(program)) return null;
  return next && /^[a-z][\w:-]*$/i.test(next) ? `${program} ${next}` : program;
}

async function matchesPrefix(args: ToolArgs, prefix: string): Promise<boolean> {
  return (await checkBashAllow(String(args.command ?? ""), [prefix])).allowed;
}
