/**
 * Session ids and where their files live: `.replio/sessions/<id>.jsonl` in the worktree.
 * @module
 */
import { join } from "../fs/path.ts";

const ID_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;
const RANDOM_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const RANDOM_LENGTH = 6;
/** Agent type names longer than this are cut in sub-agent ids, which stay readable in lists. */
const AGENT_TYPE_MAX_CHARS = 40;

/** The folder of a worktree's session files. */
export function sessionsDir(worktree: string): string {
  return join(worktree, ".replio", "sessions");
}

/** The file of one session; the id is validated first so it can never leave the folder. */
export function sessionFile(worktree: string, id: string): string {
  return join(sessionsDir(worktree), `${validateSessionId(id)}.jsonl`);
}

/**
 * The folder of one session's kept tool outputs (`tool_output`), beside its file:
 * `.replio/sessions/<id>/outputs/`.
 */
export function sessionOutputsDir(worktree: string, id: string): string {
  return join(sessionsDir(worktree), validateSessionId(id), "outputs");
}

/**
 * Whether `id` is a usable session id: 1 to 100 of `A-Z a-z 0-9 _ . -`, not starting with a
 * dot (which would allow "." and ".." and hide the file from a plain `ls`).
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isSessionId("my-session.2"), true);
 * assert.equal(isSessionId(".."), false);
 * ```
 */
export function isSessionId(id: string): boolean {
  return ID_PATTERN.test(id) && !id.startsWith(".");
}

/**
 * Returns `id` when {@link isSessionId} accepts it, else throws a `RangeError` whose message
 * ends with the fix.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(validateSessionId("ses_20261130_142501_k3x9qz"), "ses_20261130_142501_k3x9qz");
 * assert.throws(() => validateSessionId("../etc/passwd"), RangeError);
 * ```
 */
export function validateSessionId(id: string): string {
  if (!isSessionId(id)) {
    throw new RangeError(
      `Cannot use session id "${id}": ids are 1 to 100 letters, digits, "_", "." or "-" and ` +
        `do not start with ".": pick another id or run \`replio sessions list\``,
    );
  }
  return id;
}

/**
 * A new id for a top-level session: `ses_<UTC date>_<UTC time>_<6 random [a-z0-9]>`.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const id = newSessionId(new Date("2026-11-30T14:25:01Z"));
 * assert.match(id, /^ses_20261130_142501_[a-z0-9]{6}$/);
 * ```
 */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "_").slice(0, 15);
  return `ses_${stamp}_${randomSuffix()}`;
}

/**
 * A new id for a sub-agent session: `sub_<agent type>_<6 random [a-z0-9]>`, the type reduced to
 * id characters.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.match(newSubagentId("code review"), /^sub_code-review_[a-z0-9]{6}$/);
 * ```
 */
export function newSubagentId(agentType: string): string {
  const type = agentType.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, AGENT_TYPE_MAX_CHARS) ||
    "agent";
  return `sub_${type}_${randomSuffix()}`;
}

function randomSuffix(): string {
  let suffix = "";
  const bytes = new Uint8Array(RANDOM_LENGTH * 2);
  while (suffix.length < RANDOM_LENGTH) {
    crypto.getRandomValues(bytes);
    for (const byte of bytes) {
      // Rejecting bytes >= 252 (7 * 36) keeps every character equally likely.
      if (byte < 252 && suffix.length < RANDOM_LENGTH) {
        suffix += RANDOM_ALPHABET[byte % RANDOM_ALPHABET.length];
      }
    }
  }
  return suffix;
}

/**
 * Whether session `id` of `worktree` has a file: one `stat`, not a listing of every session.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(await sessionExists(await Deno.makeTempDir(), "ses_none"), false);
 * ```
 */
export async function sessionExists(worktree: string, id: string): Promise<boolean> {
  if (!isSessionId(id)) return false;
  try {
    return (await Deno.stat(sessionFile(worktree, id))).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
