/**
 * replio's folder in a worktree, `.replio/`, holds two kinds of files: what a project shares
 * (config.yaml, agents/) and what stays on this machine (sessions, input history), which can
 * hold pasted secrets, file contents and command output. The local state is kept out of git
 * by a `.gitignore` and out of other users' reach by its modes. A leaf module: every area may
 * import it.
 * @module
 */
import { join } from "./path.ts";

/**
 * `.replio/.gitignore`: everything but what projects share is ignored, so a file replio
 * adds later (a cache, a lock) is private without a change here. It ignores itself too: a
 * repository where nobody shares replio config shows no trace of replio in `git status`.
 */
export const STATE_GITIGNORE =
  `# Written by replio. Sessions, input history and other local state stay out of git;
# config.yaml and agents/ are shared with the project. Edit this file rather than delete it:
# replio writes it again when it is missing.
/*
!/config.yaml
!/agents/
`;

/**
 * Creates replio's folder `dir` (a worktree's `.replio`; 0700 when replio creates it) and its
 * `.gitignore` if missing. Call it before writing local state there.
 */
export function ensureStateDir(dir: string): void {
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
  try {
    Deno.writeTextFileSync(join(dir, ".gitignore"), STATE_GITIGNORE, { createNew: true });
  } catch (error) {
    // A project's own .gitignore here wins: it may have been edited on purpose.
    if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
  }
}

/**
 * Opens a private state file for appending: created 0600, and narrowed to 0600 when an older
 * replio left it readable by others.
 */
export function openPrivateAppend(path: string): Deno.FsFile {
  const file = Deno.openSync(path, { append: true, create: true, mode: 0o600 });
  const { mode } = file.statSync();
  if (mode !== null && (mode & 0o077) !== 0) Deno.chmodSync(path, 0o600);
  return file;
}
