import assert from "node:assert/strict";
import { readLinesBackward } from "./read_lines_backward.ts";

async function linesOf(text: string): Promise<string[]> {
  const file = await Deno.makeTempFile();
  try {
    await Deno.writeTextFile(file, text);
    const decoder = new TextDecoder();
    return (await Array.fromAsync(readLinesBackward(file))).map((line) => decoder.decode(line));
  } finally {
    await Deno.remove(file);
  }
}

Deno.test("readLinesBackward gives the lines split reads forward would, last first", async () => {
  const long = "é".repeat(100_000); // 200 KB: spans several steps backwards
  const cases = [
    "",
    "\n",
    "a",
    "a\n",
    "\nabc",
    "one\ntwo\n\nthree\n",
    `${long}\nshort\n${long}x\n\n`,
    Array.from({ length: 20_000 }, (_, i) => `line ${i} ${"€".repeat(i % 5)}`).join("\n"),
  ];
  for (const text of cases) {
    const forward = text === "" ? [] : text.replace(/\n$/, "").split("\n");
    assert.deepEqual(await linesOf(text), forward.reverse(), JSON.stringify(text.slice(0, 40)));
  }
});
