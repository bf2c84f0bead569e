/**
 * The end of a session file as a resume needs it: whether its last line is ended, and where that
 * line starts, read backwards from the end so a long file is not read whole.
 * @module
 */

/** How a file of `size` bytes ends. */
export interface FileTail {
  /** The last byte is a newline (or the file is empty). */
  endsWithNewline: boolean;
  /** Offset of the first byte of the last line: the length of the file's ended lines. */
  lastLineStart: number;
}

/** Bytes read per step backwards. */
const STEP_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads how the `size` bytes of `path` end.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const file = await Deno.makeTempFile();
 * await Deno.writeTextFile(file, '{"a":1}\n{"b":');
 * assert.deepEqual(await readFileTail(file, 13), { endsWithNewline: false, lastLineStart: 8 });
 * await Deno.remove(file);
 * ```
 */
export async function readFileTail(path: string, size: number): Promise<FileTail> {
  using file = await Deno.open(path, { read: true });
  const buffer = new Uint8Array(STEP_BYTES);
  let end = size;
  let endsWithNewline: boolean | null = size === 0 ? true : null;
  while (end > 0) {
    const start = Math.max(0, end - STEP_BYTES);
    await file.seek(start, Deno.SeekMode.Start);
    const chunk = buffer.subarray(0, end - start);
    for (let read = 0; read < chunk.length;) {
      const n = await file.read(chunk.subarray(read));
      if (n === null) {
        throw new RangeError(`Cannot read "${path}": it is shorter than ${size} bytes`);
      }
      read += n;
    }
    // The file's own last newline ends the last line; the one before it starts it.
    const searchEnd = endsWithNewline === null ? chunk.length - 1 : chunk.length;
    endsWithNewline ??= chunk[chunk.length - 1] === NEWLINE;
    const at = chunk.subarray(0, searchEnd).lastIndexOf(NEWLINE);
    if (at !== -1) return { endsWithNewline, lastLineStart: start + at + 1 };
    end = start;
  }
  return { endsWithNewline: endsWithNewline ?? true, lastLineStart: 0 };
}
