/**
 * The sandbox cannot be set up for a command here (a worktree too large to look through, a
 * missing `.git` replio may not guard): the command is refused, and a person may run it once
 * without the sandbox (run_sandboxed.ts branches on this class).
 * @module
 */

/** A command the sandbox cannot hold; the message names why and the fix. */
export class SandboxRefused extends Error {
  override name = "SandboxRefused";
}
