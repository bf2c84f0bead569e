/**
 * Finds a session file from what a person typed: a path to a `.jsonl` file, or a session id of
 * the worktree (`replio policy test`, `replio replay`).
 * @module
 */
import { sessionExists, sessionFile } from "../session/mod.ts";
import { UsageError } from "./errors.ts";

/** The file `given` names; a usage error (exit 2) when it names none. */
export async function resolveSessionFile(worktree: string, given: string): Promise<string> {
  if (await isFile(given)) return given;
  if (await sessionExists(worktree, given)) {
    return sessionFile(worktree, given);
  }
  throw new UsageError(
    `Cannot use session "${given}": no such session file or session id in ${worktree}: ` +
      "replio sessions list shows the ids",
  );
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
