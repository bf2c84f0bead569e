/**
 * One notice line on stderr, `replio: …`: what the user should know about their setup (a grant
 * that hides a setting, sessions off in a read-only worktree). stdout stays the answer.
 * @module
 */

/** Writes `replio: <message>` to stderr. */
export function noticeOnStderr(message: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(`replio: ${message}\n`));
}
