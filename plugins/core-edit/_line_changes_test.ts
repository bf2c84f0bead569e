import assert from "node:assert/strict";
import { countLines, formatHunks, lineChanges } from "./_line_changes.ts";

/** The changes of replacing every `old` in `body` by `replacement`. */
function replaceAll(body: string, old: string, replacement: string) {
  const starts: number[] = [];
  for (let at = body.indexOf(old); at !== -1; at = body.indexOf(old, at + old.length)) {
    starts.push(at);
  }
  return lineChanges({ body, starts, oldLength: old.length, replacement });
}

const TEN = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join("\n") + "\n";

Deno.test("lineChanges keeps unchanged lines inside a multi-line block as context", async () => {
  const changes = await replaceAll(TEN, "l3\nl4\nl5", "L3\nl4\nL5");
  assert.deepEqual(changes, [
    { oldStart: 3, removed: ["l3"], added: ["L3"] },
    { oldStart: 5, removed: ["l5"], added: ["L5"] },
  ]);
  assert.deepEqual(formatHunks(TEN, changes, 1), [
    "@@ -2,5 +2,5 @@",
    " l2",
    "-l3",
    "+L3",
    " l4",
    "-l5",
    "+L5",
    " l6",
  ]);
});

Deno.test("lineChanges counts a deleted line and an insertion", async () => {
  const deleted = await replaceAll(TEN, "l2\n", "");
  assert.deepEqual(deleted, [{ oldStart: 2, removed: ["l2"], added: [] }]);
  assert.deepEqual(formatHunks(TEN, deleted, 1), ["@@ -1,3 +1,2 @@", " l1", "-l2", " l3"]);
  const inserted = await replaceAll(TEN, "l1\n", "l0\nl1\n");
  assert.deepEqual(inserted, [{ oldStart: 1, removed: [], added: ["l0"] }]);
  assert.deepEqual(formatHunks(TEN, inserted, 0), ["@@ -0,0 +1,1 @@", "+l0"]);
});

Deno.test("lineChanges makes one block of occurrences on one line", async () => {
  const changes = await replaceAll("a a a\nb\n", "a", "x");
  assert.deepEqual(changes, [{ oldStart: 1, removed: ["a a a"], added: ["x x x"] }]);
  assert.deepEqual(countLines(changes), { added: 1, removed: 1 });
});

Deno.test("formatHunks splits distant changes and shifts new line numbers", async () => {
  const changes = await replaceAll(TEN.replace("l2", "x").replace("l9", "x"), "x", "y\nz");
  assert.deepEqual(formatHunks(TEN.replace("l2", "x").replace("l9", "x"), changes, 1), [
    "@@ -1,3 +1,4 @@",
    " l1",
    "-x",
    "+y",
    "+z",
    " l3",
    "@@ -8,3 +9,4 @@",
    " l8",
    "-x",
    "+y",
    "+z",
    " l10",
  ]);
});
