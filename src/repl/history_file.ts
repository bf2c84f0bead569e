/**
 * Input history kept per worktree in `.replio/history`: one entry a line, oldest first, the
 * newlines of multi-line entries escaped. Entries are appended (two REPLs in one worktree
 * both keep theirs) and the file is trimmed to the configured size when it is loaded.
 * @module
 */
import { dirname, join } from "../fs/path.ts";
import { ensureStateDir, openPrivateAppend } from "../fs/state_dir.ts";
import { writeFileAtomic } from "../fs/write_file_atomic.ts";

/** Trim the file only once it holds this many times the kept entries: rewrites stay rare. */
const TRIM_FACTOR = 2;

/** The history file of a worktree. */
export function historyPath(worktree: string): string {
  return join(worktree, ".replio", "history");
}

/**
 * One entry as a file line: `\` and newlines escaped.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(encodeEntry("a\\b\nc"), "a\\\\b\\nc");
 * ```
 */
export function encodeEntry(entry: string): string {
  return entry.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll("\r", "\\r");
}

/**
 * The entry a file line holds; the inverse of {@link encodeEntry}.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(decodeEntry("a\\\\b\\nc"), "a\\b\nc");
 * ```
 */
export function decodeEntry(line: string): string {
  return line.replace(
    /\\([\\nr])/g,
    (_, ch: string) => ch === "n" ? "\n" : ch === "r" ? "\r" : "\\",
  );
}

/** The newest `size` entries, oldest first; [] when there is no file or `size` is 0. */
export async function loadHistory(file: string, size: number): Promise<string[]> {
  if (size === 0) return [];
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const lines = text.split("\n").filter((line) => line !== "");
  const kept = lines.slice(-size);
  if (lines.length > size * TRIM_FACTOR) {
    await writeFileAtomic(file, kept.join("\n") + "\n");
  }
  return kept.map(decodeEntry);
}

/**
 * Appends one entry, creating `.replio/` (with its `.gitignore`) on first use. The file is
 * private (0600): entries can hold pasted secrets.
 */
export async function appendHistory(file: string, entry: string): Promise<void> {
  ensureStateDir(dirname(file));
  using history = openPrivateAppend(file);
  const bytes = new TextEncoder().encode(encodeEntry(entry) + "\n");
  for (let written = 0; written < bytes.length;) {
    written += await history.write(bytes.subarray(written));
  }
}
