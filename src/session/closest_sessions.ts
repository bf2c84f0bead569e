/**
 * The sessions whose ids are nearest a mistyped one, for "did you mean" in the CLI and REPL.
 * @module
 */
import { editDistance } from "../config/mod.ts";
import { listSessions } from "./list_sessions.ts";

/** The ids of `worktree`'s top-level sessions nearest `id`, closest first, with their distance. */
export async function closestSessions(
  worktree: string,
  id: string,
): Promise<{ id: string; distance: number }[]> {
  return (await listSessions(worktree)).filter((s) => !s.parent)
    .map((s) => ({ id: s.id, distance: editDistance(id, s.id) }))
    .sort((a, b) => a.distance - b.distance);
}
