import assert from "node:assert/strict";
import { join } from "../fs/path.ts";
import { TreeScan, type TreeScanOptions } from "./tree_scan.ts";

async function tempDir(): Promise<AsyncDisposable & { path: string }> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_scan_" }));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** A scan that finds every entry named `.git`, with the given raciness. */
function gitScan(root: string, racyMs: number, extra: Partial<TreeScanOptions> = {}): TreeScan {
  return new TreeScan({
    root,
    maxDepth: Infinity,
    maxFolders: 1_000,
    racyMs,
    classify: (path, _depth, entries) => ({
      enter: entries.filter((e) => e.isDirectory && e.name !== ".git").map((e) => e.name),
      found: entries.filter((e) => e.name === ".git").map((e) => join(path, e.name)),
    }),
    unreadable: () => [],
    ...extra,
  });
}

Deno.test("TreeScan reads again only the folders whose time or identity changed", async () => {
  await using dir = await tempDir();
  for (let i = 0; i < 20; i++) await Deno.mkdir(join(dir.path, `d${i}/e`), { recursive: true });
  // Never racy: this test is about changes, the next about changes the clock cannot show.
  const scan = gitScan(dir.path, -Infinity);
  assert.deepEqual(scan.refresh(), []);
  assert.deepEqual(scan.lastPass, { folders: 41, read: 41 });
  scan.refresh();
  assert.deepEqual(scan.lastPass, { folders: 41, read: 0 });
  await Deno.mkdir(join(dir.path, "d3/e/.git"));
  assert.deepEqual(scan.refresh(), [join(dir.path, "d3/e/.git")]);
  assert.deepEqual(scan.lastPass, { folders: 41, read: 1 });
  // A folder replaced by another of the same name (a new inode) is read again too.
  await Deno.remove(join(dir.path, "d3"), { recursive: true });
  await Deno.mkdir(join(dir.path, "d3/e"), { recursive: true });
  assert.deepEqual(scan.refresh(), []);
});

Deno.test("TreeScan reads again a folder changed too recently to trust its time", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "a"));
  // Everything here changed within the hour: every listing stays suspect.
  const scan = gitScan(dir.path, 3_600_000);
  scan.refresh();
  scan.refresh();
  assert.deepEqual(scan.lastPass, { folders: 2, read: 2 });
});

Deno.test("TreeScan stops at maxDepth and throws past maxFolders", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "a/b/c/.git"), { recursive: true });
  await Deno.mkdir(join(dir.path, "a/.git"), { recursive: true });
  assert.deepEqual(gitScan(dir.path, -Infinity, { maxDepth: 1 }).refresh(), [
    join(dir.path, "a/.git"),
  ]);
  assert.throws(
    () => gitScan(dir.path, -Infinity, { maxFolders: 3 }).refresh(),
    { name: "ScanLimitError", message: `more than 3 folders under ${dir.path}` },
  );
});
