/**
 * Runs the real `git` for core-git's tools: no pager, no editor, no prompts, stdin closed, in
 * the worktree, with stdout read only up to the result cap.
 * @module
 */
import type { ToolContext } from "../../src/plugins/api.ts";

/** What git printed and how it ended. */
export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
  /** Whether stdout was cut at `maxChars` and git ended early (its exit code then means nothing). */
  truncated: boolean;
}

/** Options for {@link runGit}. */
export interface RunGitOptions {
  /** Stop reading stdout (and end git) past this many characters; 0 reads everything. */
  maxChars?: number;
  /** How the failed action is named in errors, e.g. `git diff`. */
  action: string;
}

/**
 * Environment for every git run: pagers and editors become no-ops and nothing waits for a
 * person; optional index writes are skipped so a read never takes `index.lock`.
 */
const GIT_ENV: Record<string, string> = {
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GCM_INTERACTIVE: "never",
};

/** Runs `git --no-pager -c core.pager=cat <args>` in the worktree. */
export async function runGit(
  ctx: ToolContext,
  args: readonly string[],
  options: RunGitOptions,
): Promise<GitOutput> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("git", {
      args: ["--no-pager", "-c", "core.pager=cat", ...args],
      cwd: ctx.worktree,
      env: GIT_ENV,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: ctx.signal,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(
        `Cannot run ${options.action}: git is not installed or not on PATH: install git`,
      );
    }
    if (error instanceof Deno.errors.NotCapable) {
      throw new Deno.errors.NotCapable(
        `Cannot run ${options.action}: replio was started without permission to run git: ` +
          `restart it with --allow-run=git (or --allow-run)`,
      );
    }
    throw error;
  }
  const [read, stderr] = await Promise.all([
    readCapped(child, options.maxChars ?? 0),
    new Response(child.stderr).text(),
  ]);
  const { code } = await child.status;
  ctx.signal.throwIfAborted();
  if (/not a git repository/i.test(stderr)) {
    throw new Error(
      `Cannot run ${options.action}: "${ctx.worktree}" is not inside a git repository: ` +
        `start replio in a repository (or pass --path), or create one with run_command "git init"`,
    );
  }
  return { code, stdout: read.text, stderr, truncated: read.truncated };
}

/**
 * Reads stdout up to `maxChars` (the registry cuts and marks the excess); past it git is ended,
 * so an unbounded `git log` of a large history costs no more than one capped result.
 */
async function readCapped(
  child: Deno.ChildProcess,
  maxChars: number,
): Promise<{ text: string; truncated: boolean }> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk, { stream: true });
    if (maxChars > 0 && text.length > maxChars) {
      endEarly(child);
      return { text, truncated: true };
    }
  }
  return { text: text + decoder.decode(), truncated: false };
}

function endEarly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGTERM");
  } catch (error) {
    // git may have finished writing and exited between the read and the kill.
    if (!(error instanceof TypeError)) throw error;
  }
}

/**
 * A git failure as the model reads it: the action, the exit code, git's own message, the fix.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   gitFailure("git log", { code: 128, stdout: "", stderr: "fatal: bad revision 'x'\n" }, "fix"),
 *   "Cannot run git log: exit 128: fatal: bad revision 'x': fix",
 * );
 * ```
 */
export function gitFailure(
  action: string,
  output: Pick<GitOutput, "code" | "stdout" | "stderr">,
  fix: string,
): string {
  const said = (output.stderr.trim() || output.stdout.trim()).replace(/\.$/, "");
  return `Cannot run ${action}: exit ${output.code}${said ? `: ${said}` : ""}: ${fix}`;
}
