/**
 * A file's lines from its last to its first, read in steps from the end: what a reader that
 * wants the end of a long session (its last turn) needs, without reading the rest.
 * @module
 */
import { concatBytes } from "../fs/concat_bytes.ts";

/** Bytes read per step backwards. */
const STEP_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Yields the lines of `path` last first, without their newlines (a final newline ends the last
 * line; it starts no empty one). Stop early to read no more of the file.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const file = await Deno.makeTempFile();
 * await Deno.writeTextFile(file, "one\ntwo\n\nthree\n");
 * const lines = await Array.fromAsync(readLinesBackward(file));
 * assert.deepEqual(lines.map((line) => new TextDecoder().decode(line)), ["three", "", "two", "one"]);
 * await Deno.remove(file);
 * ```
 */
export async function* readLinesBackward(path: string): AsyncGenerator<Uint8Array> {
  using file = await Deno.open(path, { read: true });
  let end = (await file.stat()).size;
  /** The start of the line read last, reaching back into earlier steps. */
  let partial: Uint8Array[] = [];
  let isLast = true;
  while (end > 0) {
    const start = Math.max(0, end - STEP_BYTES);
    const chunk = new Uint8Array(end - start);
    file.seekSync(start, Deno.SeekMode.Start);
    for (let read = 0; read < chunk.length;) {
      const n = file.readSync(chunk.subarray(read));
      if (n === null) throw new RangeError(`Cannot read "${path}": it shrank while being read`);
      read += n;
    }
    let lineEnd = chunk.length;
    if (isLast && chunk[lineEnd - 1] === NEWLINE) lineEnd--;
    isLast = false;
    // A negative start would count from the end: an empty range has no newline to find.
    for (let at = lineEnd > 0 ? chunk.lastIndexOf(NEWLINE, lineEnd - 1) : -1; at !== -1;) {
      yield concatBytes([chunk.subarray(at + 1, lineEnd), ...partial]);
      partial = [];
      lineEnd = at;
      at = at === 0 ? -1 : chunk.lastIndexOf(NEWLINE, at - 1);
    }
    partial = [chunk.subarray(0, lineEnd), ...partial];
    end = start;
  }
  // A file that is not empty has a first line, however short.
  if (!isLast) yield concatBytes(partial);
}
