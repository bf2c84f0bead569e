/**
 * A session's output store (`tool_output`): where it lives, with what budget, and the clean-up
 * `replio sessions gc` runs.
 * @module
 */
import { join } from "../fs/path.ts";
import type { Config } from "../config/mod.ts";
import { ensureStateDir } from "../fs/state_dir.ts";
import { OutputStore } from "../tools/output_store.ts";
import { sessionFile, sessionOutputsDir, sessionsDir } from "./session_id.ts";

/** The output store of session `id`, within `tool_output.max_mb`. */
export function sessionOutputStore(worktree: string, id: string, config: Config): OutputStore {
  return new OutputStore({
    dir: sessionOutputsDir(worktree, id),
    maxBytes: Math.floor(config.get("tool_output.max_mb") * 1_000_000),
    // `.replio` private and git-ignored before anything is written under it.
    prepare: () => ensureStateDir(join(worktree, ".replio")),
  });
}

/** What {@link collectOutputs} removed. */
export interface OutputsGcReport {
  /** Session ids whose outputs were removed. */
  removed: string[];
  bytes: number;
}

/**
 * Removes the kept outputs of sessions last written more than `olderThanDays` ago, and of
 * sessions whose file is gone. The session files themselves stay.
 */
export async function collectOutputs(
  worktree: string,
  olderThanDays: number,
  now = Date.now(),
): Promise<OutputsGcReport> {
  const report: OutputsGcReport = { removed: [], bytes: 0 };
  const cutoff = now - olderThanDays * 86_400_000;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(sessionsDir(worktree)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return report;
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isDirectory) continue;
    const id = entry.name;
    let outputs: string;
    try {
      outputs = sessionOutputsDir(worktree, id);
    } catch {
      continue; // not a session's folder
    }
    const updated = await mtime(sessionFile(worktree, id));
    if (updated !== null && updated >= cutoff) continue;
    const bytes = await folderBytes(outputs);
    if (bytes === null) continue;
    await Deno.remove(join(sessionsDir(worktree), id), { recursive: true });
    report.removed.push(id);
    report.bytes += bytes;
  }
  report.removed.sort();
  return report;
}

async function mtime(path: string): Promise<number | null> {
  try {
    return (await Deno.stat(path)).mtime?.getTime() ?? 0;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

async function folderBytes(dir: string): Promise<number | null> {
  let total = 0;
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isFile) total += (await Deno.stat(join(dir, entry.name))).size;
    }
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  return total;
}
