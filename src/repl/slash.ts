/**
 * Slash-command syntax: which lines are commands, how their name and arguments split, and the
 * nearest known name for a typo.
 * @module
 */
import { editDistance } from "../config/mod.ts";

/** A parsed `/name args` line. */
export interface SlashInput {
  /** The name without the slash, lower-cased. */
  name: string;
  /** Everything after the name, trimmed. */
  args: string;
}

/**
 * The command on a line, or null when it is a message. A path such as `/etc/hosts is odd` is
 * a message: a command name has no second slash.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(parseSlash("/tool file_read {}"), { name: "tool", args: "file_read {}" });
 * assert.equal(parseSlash("/etc/hosts is odd"), null);
 * ```
 */
export function parseSlash(line: string): SlashInput | null {
  const match = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(line.trim());
  if (!match) return null;
  return { name: match[1]!.toLowerCase(), args: (match[2] ?? "").trim() };
}

/**
 * The first word of an argument string and the rest.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(splitFirst('file_read {"path": "a b"}'), ["file_read", '{"path": "a b"}']);
 * assert.deepEqual(splitFirst(""), ["", ""]);
 * ```
 */
export function splitFirst(args: string): [string, string] {
  const match = /^(\S*)\s*([\s\S]*)$/.exec(args.trim())!;
  return [match[1]!, match[2]!.trim()];
}

/**
 * The known name closest to `name`, when it is close enough to be a typo.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(nearestName("hlep", ["help", "tool"]), "help");
 * assert.equal(nearestName("xyzzy", ["help", "tool"]), null);
 * ```
 */
export function nearestName(name: string, known: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of known) {
    // A prefix ("/comp") is the likeliest intent even when the edit distance is large.
    const distance = candidate.startsWith(name) ? 0.5 : editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, name.length / 3) ? best : null;
}
