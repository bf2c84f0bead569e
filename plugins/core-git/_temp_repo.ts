/**
 * Test support for core-git: a real git repository in a temporary worktree.
 * @module
 */
import { type TempWorktree, tempWorktree } from "../../tests/support/worktree.ts";

/** A temporary worktree that is a git repository, with a way to run git in it. */
export interface TempRepo extends TempWorktree {
  /** Runs git in the repository and returns stdout; throws on a non-zero exit. */
  git(...args: string[]): Promise<string>;
}

/**
 * A repository on branch main with a local identity; `files` are committed as "init" unless
 * `commit` is false.
 */
export async function tempRepo(
  files: Record<string, string> = {},
  { commit = true }: { commit?: boolean } = {},
): Promise<TempRepo> {
  const wt = await tempWorktree(files);
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", {
      args,
      cwd: wt.path,
      stdin: "null",
      env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    if (!out.success) {
      throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
    }
    return text;
  };
  await git("init", "-q", "-b", "main");
  await git("config", "user.name", "Test User");
  await git("config", "user.email", "test@example.com");
  await git("config", "commit.gpgSign", "false");
  if (commit && Object.keys(files).length) {
    await git("add", "-A");
    await git("commit", "-q", "-m", "init");
  }
  return Object.assign(wt, { git });
}
