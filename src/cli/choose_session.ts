/**
 * Which session a command opens: `--session ID` (an existing one, or a new one under a name of
 * your choosing), `--continue` (the one last used in this worktree) or, with neither, a new one.
 * @module
 */
import {
  closestSessions,
  listSessionHeads,
  readLastUsed,
  sessionExists,
  type SessionHead,
  sessionsDir,
} from "../session/mod.ts";
import { UsageError } from "./errors.ts";

/** The flags that choose a session. */
export interface SessionChoice {
  session?: string | undefined;
  continue?: boolean | undefined;
}

/** An id replio made (`ses_20261130_142501_k3x9qz`): nobody types one that does not exist. */
const GENERATED_ID = /^ses_\d{8}_\d{6}_[a-z0-9]{6}$/;
/** Edits within which an unknown name reads as a typo of an existing id. */
const TYPO_DISTANCE = 2;
/** Ids a "did you mean" names at most. */
const SUGGESTIONS = 3;

/**
 * The session id to open, or undefined for a new session. An unknown `--session` that looks
 * like a generated id, or like a typo of an existing one, is a usage error naming the closest
 * ids: a mistake must not silently start an empty session.
 */
export async function chooseSession(
  worktree: string,
  choice: SessionChoice,
): Promise<string | undefined> {
  if (choice.session !== undefined && choice.continue) {
    throw new UsageError("Cannot use --session and --continue together: pick one");
  }
  if (choice.continue) return (await latestSession(worktree))?.id;
  const id = choice.session;
  if (id === undefined || await sessionExists(worktree, id)) return id;
  const ranked = await closestSessions(worktree, id);
  const isTypo = (ranked[0]?.distance ?? Infinity) <= TYPO_DISTANCE;
  if (!GENERATED_ID.test(id) && !isTypo) return id;
  const hint = ranked.length === 0
    ? `there are no sessions in ${sessionsDir(worktree)} yet: leave out --session to start one`
    : `did you mean ${
      ranked.slice(0, SUGGESTIONS).map((s) => `"${s.id}"`).join(" or ")
    }? (replio sessions list shows them all)`;
  throw new UsageError(`Cannot open session "${id}": no such session: ${hint}`);
}

/**
 * The top-level session of `worktree` last used: the one the REPL last ended in, unless another
 * was written after that (the newest then), if any.
 */
export async function latestSession(worktree: string): Promise<SessionHead | undefined> {
  // Headers only: counting turns would read every session whole (issue 26).
  const sessions = (await listSessionHeads(worktree)).filter((s) => !s.parent);
  const newest = sessions[0];
  const last = await readLastUsed(worktree);
  const recorded = last && sessions.find((s) => s.id === last.id);
  if (!recorded || !newest) return newest;
  return new Date(newest.updated) <= last.at ? recorded : newest;
}
