/**
 * Where renderers write: injected, so tests and the REPL can redirect output.
 * @module
 */

/** A text destination. */
export interface TextWriter {
  write(text: string): void;
}

/** Writes synchronously to a Deno file (stdout, stderr), looping over partial writes. */
export function fileWriter(file: { writeSync(data: Uint8Array): number }): TextWriter {
  const encoder = new TextEncoder();
  return {
    write(text: string) {
      let data = encoder.encode(text);
      while (data.length > 0) data = data.subarray(file.writeSync(data));
    },
  };
}

/** Collects text in memory (tests, JSON output). */
export class StringWriter implements TextWriter {
  text = "";
  write(text: string): void {
    this.text += text;
  }
}
