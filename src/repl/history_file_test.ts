import assert from "node:assert/strict";
import { join } from "node:path";
import { tempWorktree } from "../../tests/support/worktree.ts";
import {
  appendHistory,
  decodeEntry,
  encodeEntry,
  historyPath,
  loadHistory,
} from "./history_file.ts";

Deno.test("appendHistory creates .replio and loadHistory reads entries back in order", async () => {
  await using wt = await tempWorktree();
  const file = historyPath(wt.path);
  assert.equal(file, join(wt.path, ".replio", "history"));
  assert.deepEqual(await loadHistory(file, 10), []);
  await appendHistory(file, "first");
  await appendHistory(file, "two\nlines \\ here");
  assert.deepEqual(await loadHistory(file, 10), ["first", "two\nlines \\ here"]);
  assert.equal(await wt.read(".replio/history"), "first\ntwo\\nlines \\\\ here\n");
});

Deno.test("loadHistory keeps the newest entries and trims an oversized file", async () => {
  await using wt = await tempWorktree();
  const file = historyPath(wt.path);
  for (let i = 1; i <= 7; i++) await appendHistory(file, `entry ${i}`);
  assert.deepEqual(await loadHistory(file, 3), ["entry 5", "entry 6", "entry 7"]);
  assert.equal(await wt.read(".replio/history"), "entry 5\nentry 6\nentry 7\n");
  assert.deepEqual(await loadHistory(file, 0), []);
});

Deno.test("encodeEntry and decodeEntry round-trip backslashes and newlines", () => {
  for (const entry of ["plain", "a\\nb", "x\ny\r\nz", "\\", "end\\"]) {
    assert.equal(decodeEntry(encodeEntry(entry)), entry);
    assert.equal(encodeEntry(entry).includes("\n"), false);
  }
});
