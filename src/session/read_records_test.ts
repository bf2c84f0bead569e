import assert from "node:assert/strict";
import { readLines, readRecords } from "./read_records.ts";

/** More than one read of the reader: lines cross read boundaries at every kind of byte. */
const LONG_CHARS = 700_000;

Deno.test("readLines gives every line whole across reads, multi-byte characters included", async () => {
  const file = await Deno.makeTempFile();
  try {
    // "é" is two bytes and "€" three: with these lengths reads end inside them somewhere.
    const lines = [
      "first",
      "é".repeat(LONG_CHARS),
      "",
      "€".repeat(LONG_CHARS / 2) + "x",
      ...Array.from({ length: 5000 }, (_, i) => `short line ${i} ${"€".repeat(i % 7)}`),
      "last line without a newline",
    ];
    await Deno.writeTextFile(file, lines.join("\n"));
    const read = await Array.fromAsync(readLines(file));
    assert.equal(read.length, lines.length);
    assert.deepEqual(read.map((line) => line.text), lines);
    assert.deepEqual(read.map((line) => line.number), lines.map((_, i) => i + 1));
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("readRecords marks only a cut last line as last, however long the file", async () => {
  const file = await Deno.makeTempFile();
  try {
    const record = (i: number) =>
      JSON.stringify({
        type: "message",
        ts: "2026-12-04T00:00:00.000Z",
        message: { role: "user", content: `${i} ${"y".repeat(300)}` },
      });
    const body = Array.from({ length: 3000 }, (_, i) => record(i)).join("\n");
    await Deno.writeTextFile(file, `${body}\n{"type":"mess\n${record(3000)}\n{"type":"mess`);
    const items = await Array.fromAsync(readRecords(file));
    assert.equal(items.filter((item) => item.kind === "record").length, 3001);
    const skipped = items.flatMap((item) =>
      item.kind === "skipped" ? [{ line: item.line, last: item.last }] : []
    );
    assert.deepEqual(skipped, [{ line: 3001, last: false }, { line: 3003, last: true }]);
  } finally {
    await Deno.remove(file);
  }
});
