/**
 * git_commit: stage paths or tracked changes and commit them, always after confirmation.
 * @module
 */
import {
  isAbsolute,
  relative,
  sep,
  type Static,
  type ToolContext,
  type ToolSpec,
  Type,
} from "../../src/plugins/api.ts";
import { gitFailure, runGit } from "./_run_git.ts";
import DESCRIPTION from "./git_commit.md" with { type: "text" };

const parameters = Type.Object({
  message: Type.String({
    minLength: 1,
    description: "Commit message: a short summary line, optionally a blank line and a body",
  }),
  paths: Type.Optional(Type.Array(Type.String(), {
    description: "Files or directories to stage first, relative to the worktree",
  })),
  all: Type.Optional(Type.Boolean({
    default: false,
    description: "Stage every change to tracked files in the worktree first (not new files)",
  })),
});

/** git_commit's registration: an edit that always asks, whatever `tool_permission.edit` says. */
export const gitCommitSpec = {
  name: "git_commit",
  description: DESCRIPTION,
  parameters,
  category: "write",
  permission: "edit",
  deno: { read: true, write: true, run: ["git"] },
  keyArg: "message",
  verb: "Commit",
  aliases: ["commit"],
  // A commit is hard to take back once others build on it, so a person always approves it.
  alwaysAsk: "git_commit always confirms",
} satisfies ToolSpec<typeof parameters>;

/** Stages what was asked, commits it, and returns git's `[branch hash] summary` report. */
export async function commitChanges(
  { message, paths = [], all = false }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  if (message.trim() === "") {
    throw new RangeError("Cannot commit: the message is blank: write a summary line in message");
  }
  const staged = await Promise.all(paths.map((path) => resolveInside(path, ctx)));
  // Literal pathspecs: a path such as app/[id]/page.tsx means that file, not a glob.
  // Hooks are the repository's code: they run only when the user opted in.
  const hooks = ctx.config.get("git.run_hooks");
  const git = (args: string[], action: string) =>
    runGit(ctx, ["--literal-pathspecs", ...args], { action, hooks });
  const add = async (args: string[]) => {
    const added = await git(["add", ...args], "git add");
    if (added.code !== 0) {
      throw new Error(
        gitFailure("git add", added, "check the paths (git status lists changed files)"),
      );
    }
  };
  if (all) await add(["--update", "--", "."]);
  if (staged.length) await add(["--", ...staged]);

  const check = await git(
    ["diff", "--cached", "--quiet", "--no-ext-diff", "--no-textconv"],
    "git diff --cached",
  );
  if (check.code === 0) {
    throw new RangeError(
      "Cannot commit: nothing is staged: pass the changed files in paths, or all: true for " +
        "changes to tracked files (git status shows what changed)",
    );
  }
  if (check.code !== 1) {
    throw new Error(gitFailure("git diff --cached", check, "resolve what git reports first"));
  }
  const committed = await git(["commit", "--message", message], "git commit");
  if (committed.code !== 0) {
    throw new Error(
      gitFailure(
        "git commit",
        committed,
        "fix what git reports (the changes stay staged) and call git_commit again",
      ),
    );
  }
  return committed.stdout.trim();
}

/** The absolute path, refused unless it is inside the worktree (symlinks resolved). */
async function resolveInside(path: string, ctx: ToolContext): Promise<string> {
  const resolved = await ctx.resolvePath(path, "read");
  const rel = relative(ctx.worktree, resolved);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new RangeError(
      `Cannot commit: path "${path}" is outside the worktree "${ctx.worktree}": ` +
        `stage only files inside the worktree`,
    );
  }
  return resolved;
}
