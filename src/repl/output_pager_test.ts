import assert from "node:assert/strict";
import { LineIndex } from "./output_pager.ts";

async function indexOf(text: string) {
  const path = await Deno.makeTempFile();
  await Deno.writeTextFile(path, text);
  const file = await Deno.open(path);
  const index = await LineIndex.build(file);
  return {
    index,
    read: (first: number, count: number) => index.read(file, first, count),
    [Symbol.asyncDispose]: async () => {
      file.close();
      await Deno.remove(path);
    },
  };
}

Deno.test("LineIndex counts a last line without a newline, and an empty file has none", async () => {
  await using plain = await indexOf("a\nb\nc");
  assert.equal(plain.index.lines, 3);
  assert.deepEqual(await plain.read(1, 5), ["b", "c"]);
  await using ended = await indexOf("a\nb\n");
  assert.equal(ended.index.lines, 2);
  assert.deepEqual(await ended.read(0, 2), ["a", "b"]);
  await using empty = await indexOf("");
  assert.equal(empty.index.lines, 0);
  assert.deepEqual(await empty.read(0, 10), []);
});

Deno.test("LineIndex reads any window of a file larger than its read buffer", async () => {
  const lines = Array.from({ length: 300_000 }, (_, i) => `line ${i + 1} ${"x".repeat(i % 7)}`);
  await using big = await indexOf(lines.join("\n") + "\n");
  assert.equal(big.index.lines, 300_000);
  assert.deepEqual(await big.read(123_456, 3), lines.slice(123_456, 123_459));
  assert.deepEqual(await big.read(299_998, 10), lines.slice(299_998));
  // Multi-byte characters split across reads come back whole.
  await using wide = await indexOf("é".repeat(700_000) + "\nz");
  assert.deepEqual(await wide.read(1, 1), ["z"]);
  assert.equal((await wide.read(0, 1))[0]!.length, 700_000);
});
