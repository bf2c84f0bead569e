/**
 * The session a person last used in a worktree, for `--continue`: the newest file is not always
 * it (`/session load` an older one and quit, and the newest is the one left behind). The REPL
 * records the session it ends in; a session written after that record is newer use and wins.
 * @module
 */
import { join } from "../fs/path.ts";
import { isAccessError } from "../fs/access_error.ts";
import { isSessionId, sessionsDir } from "./session_id.ts";

/** Beside the session files; a dot name is never a session id, so no listing counts it. */
const FILE = ".last";

/** A recorded last use: the session and when it was recorded. */
export interface LastUsed {
  id: string;
  at: Date;
}

/**
 * Records `id` as the session last used in `worktree`. Synchronous: it runs as the REPL exits,
 * SIGTERM included. A folder that cannot be written loses only this hint.
 */
export function recordLastUsed(worktree: string, id: string): void {
  try {
    Deno.writeTextFileSync(join(sessionsDir(worktree), FILE), `${id}\n`, { mode: 0o600 });
  } catch (error) {
    // `--continue` then falls back to the newest session, as it did before this record.
    if (!isAccessError(error) && !(error instanceof Deno.errors.NotFound)) throw error;
  }
}

/** The recorded last use, or null when there is none (or it names no valid id). */
export async function readLastUsed(worktree: string): Promise<LastUsed | null> {
  const path = join(sessionsDir(worktree), FILE);
  try {
    const [text, stat] = await Promise.all([Deno.readTextFile(path), Deno.stat(path)]);
    const id = text.trim();
    return isSessionId(id) ? { id, at: stat.mtime ?? new Date(0) } : null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return null;
    throw error;
  }
}
