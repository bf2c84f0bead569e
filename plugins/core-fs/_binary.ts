/**
 * Telling binary files from text, and naming their likely type.
 * @module
 */

/** Bytes sniffed for a NUL, as git and ripgrep judge binary files. */
const SNIFF_BYTES = 8192;

/** Leading bytes of common binary formats; the first match names the type. */
const SIGNATURES: readonly { bytes: readonly number[]; type: string; at?: number }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], type: "PNG image" },
  { bytes: [0xff, 0xd8, 0xff], type: "JPEG image" },
  { bytes: [0x47, 0x49, 0x46, 0x38], type: "GIF image" },
  { bytes: [0x57, 0x45, 0x42, 0x50], at: 8, type: "WebP image" },
  { bytes: [0x25, 0x50, 0x44, 0x46], type: "PDF document" },
  { bytes: [0x50, 0x4b, 0x03, 0x04], type: "ZIP archive" },
  { bytes: [0x1f, 0x8b], type: "gzip archive" },
  { bytes: [0x42, 0x5a, 0x68], type: "bzip2 archive" },
  { bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], type: "xz archive" },
  { bytes: [0x28, 0xb5, 0x2f, 0xfd], type: "zstd archive" },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], type: "7-Zip archive" },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], type: "ELF executable" },
  { bytes: [0x4d, 0x5a], type: "Windows executable" },
  { bytes: [0xcf, 0xfa, 0xed, 0xfe], type: "Mach-O executable" },
  { bytes: [0xca, 0xfe, 0xba, 0xbe], type: "Java class or Mach-O executable" },
  { bytes: [0x00, 0x61, 0x73, 0x6d], type: "WebAssembly module" },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], type: "SQLite database" },
  { bytes: [0xff, 0xfe], type: "UTF-16 text" },
  { bytes: [0xfe, 0xff], type: "UTF-16 text" },
];

/**
 * Whether the start of a file holds a NUL byte, the test git and ripgrep use for binary.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(looksBinary(new Uint8Array([0x61, 0x00])), true);
 * assert.equal(looksBinary(new TextEncoder().encode("text")), false);
 * ```
 */
export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, SNIFF_BYTES).indexOf(0) !== -1;
}

/**
 * A guess at a binary file's type from its first bytes.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(guessBinaryType(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d])), "PNG image");
 * assert.equal(guessBinaryType(new Uint8Array([0x00, 0x01])), "unknown type");
 * ```
 */
export function guessBinaryType(head: Uint8Array): string {
  const found = SIGNATURES.find(({ bytes, at = 0 }) => bytes.every((b, i) => head[at + i] === b));
  return found?.type ?? "unknown type";
}
