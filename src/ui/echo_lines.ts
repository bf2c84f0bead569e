/**
 * What the REPL echoes of a command's result (run_command): its first lines, and how many more
 * the command printed. The result the model gets may itself be cut, head and tail around a line
 * that counts what was left out; the count shown to a person is of the command's output, and
 * names the output id a person can open with `/output` when the whole output was kept.
 * @module
 */

/** The echoed part of a result. */
export interface EchoedResult {
  /** The lines to show. */
  shown: string[];
  /** Lines of the output not shown. */
  more: number;
  /** The id of the kept whole output (`o6`), or null when none was kept. */
  keptId: string | null;
}

/**
 * The line a kept output leaves between head and tail (tools/output_store.ts `omittedNote`):
 * `… 19,800 lines (of 20,001 lines, 109 KB in all) omitted, lines 101–19,900: read them with
 * tool_output(id="o6", …`. The count is the first number, the id the first `id="…"`.
 */
const KEPT_NOTE =
  /^… ([\d,]+) lines? .*omitted, lines? [\d,–]+: read them with tool_output\(id="(o\d+)"/;
/** The marker of a cut without a kept output (plugins/run_process.ts): `... (1234 lines omitted) ...`. */
const CUT_MARKER = /^\.\.\. \((\d+) lines? omitted\) \.\.\.$/;
/** The note of an output kept because long lines were cut: `(long lines were cut: …id="o6"…)`. */
const LONG_LINES_NOTE = /^\(long lines were cut: .*tool_output\(id="(o\d+)"/;

/**
 * At most `max` lines of the result's head, and the count of the rest of the output.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const result = "exit 0\n1\n2\n… 96 lines (of 101 lines, 292 B in all) omitted, lines 3–98: " +
 *   'read them with tool_output(id="o6", offset=3) or grep them\n99\n100';
 * assert.deepEqual(echoLines(result, 2), { shown: ["exit 0", "1"], more: 99, keptId: "o6" });
 * assert.deepEqual(echoLines("a\nb\n", 5), { shown: ["a", "b"], more: 0, keptId: null });
 * ```
 */
export function echoLines(output: string, max: number): EchoedResult {
  const lines = output.replace(/\n$/, "").split("\n");
  const body: string[] = [];
  let head: number | null = null;
  let omitted = 0;
  let keptId: string | null = null;
  for (const line of lines) {
    const kept = KEPT_NOTE.exec(line);
    const cut = kept ? null : CUT_MARKER.exec(line);
    const long = kept || cut ? null : LONG_LINES_NOTE.exec(line);
    if (kept || cut) {
      omitted += Number((kept ?? cut)![1]!.replaceAll(",", ""));
      keptId = kept?.[2] ?? keptId;
      // Lines after the gap are the tail: never shown as if they followed the head.
      head ??= body.length;
    } else if (long) {
      keptId = long[1]!;
    } else {
      body.push(line);
    }
  }
  const shown = body.slice(0, Math.min(max, head ?? body.length));
  return { shown, more: body.length + omitted - shown.length, keptId };
}
