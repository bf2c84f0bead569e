/**
 * The one line a resumed or loaded session with unusable lines gets, as `replio sessions show`
 * warns: loading goes on without them, and saying nothing would hide lost history.
 * @module
 */
import type { ReplContext } from "./context.ts";

/**
 * One line when the resumed session had lines that could not be used (a hand edit, a crash
 * mid-line): they were skipped, and `replio sessions show` lists them all.
 */
export function printDamage(repl: ReplContext): void {
  const { warnings, id } = repl.session;
  const [first] = warnings;
  if (first === undefined) return;
  const more = warnings.length > 1 ? ` (and ${warnings.length - 1} more)` : "";
  repl.print(
    `warning: session ${id}: ${first}${more}; replio sessions show ${id} lists what was skipped`,
    repl.styles.yellow,
  );
}
