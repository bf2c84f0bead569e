import assert from "node:assert/strict";
import { join } from "node:path";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";

const encoder = new TextEncoder();

Deno.test("file_edit replaces a unique occurrence", async () => {
  await using wt = await tempWorktree({ "a.txt": "one\ntwo\nthree\n" });
  const out = await runTool(wt, "file_edit", { path: "a.txt", old: "two", new: "2\n2b" });
  assert.equal(out, "Edited a.txt: 1 replacement at line 2 (+2 -1 lines)");
  assert.equal(await wt.read("a.txt"), "one\n2\n2b\nthree\n");
});

Deno.test("file_edit refuses an ambiguous old and changes nothing", async () => {
  await using wt = await tempWorktree({ "a.txt": "x = 1\ny = 2\nx = 1\n" });
  const out = await runTool(wt, "file_edit", { path: "a.txt", old: "x = 1", new: "x = 3" });
  assert.equal(
    out,
    'Error: Cannot edit "a.txt": old occurs 2 times (at lines 1, 3), expected 1: add ' +
      "surrounding lines to old to make it unique, or set count to 2 to replace them all " +
      "(0 replaces every occurrence)",
  );
  assert.equal(await wt.read("a.txt"), "x = 1\ny = 2\nx = 1\n");
});

Deno.test("file_edit replaces every occurrence with count 0", async () => {
  await using wt = await tempWorktree({ "a.txt": "a a\na\n" });
  const out = await runTool(wt, "file_edit", { path: "a.txt", old: "a", new: "b", count: 0 });
  assert.equal(out, "Edited a.txt: 3 replacements at lines 1, 1, 2 (+2 -2 lines)");
  assert.equal(await wt.read("a.txt"), "b b\nb\n");
});

Deno.test("file_edit replaces exactly count occurrences when the file holds that many", async () => {
  await using wt = await tempWorktree({ "a.txt": "k\nk\n" });
  assert.equal(
    await runTool(wt, "file_edit", { path: "a.txt", old: "k", new: "v", count: 2 }),
    "Edited a.txt: 2 replacements at lines 1, 2 (+2 -2 lines)",
  );
  assert.equal(
    await runTool(wt, "file_edit", { path: "a.txt", old: "v", new: "w", count: 3 }),
    'Error: Cannot edit "a.txt": old occurs 2 times (at lines 1, 2), expected 3: set count to 2 ' +
      "(0 replaces every occurrence), or re-read the file with file_read",
  );
  assert.equal(await wt.read("a.txt"), "v\nv\n");
});

Deno.test("file_edit says when old is not found", async () => {
  await using wt = await tempWorktree({ "a.txt": "alpha\n" });
  assert.equal(
    await runTool(wt, "file_edit", { path: "a.txt", old: "beta", new: "gamma" }),
    'Error: Cannot edit "a.txt": old was not found in the file: re-read the file with ' +
      "file_read and copy old exactly as it appears",
  );
});

Deno.test("file_edit points at a match that differs only in whitespace", async () => {
  await using wt = await tempWorktree({
    "a.py": "def f():\n\tif x:  \n\t\treturn 1\n",
  });
  const out = await runTool(wt, "file_edit", {
    path: "a.py",
    old: "    if x:\n        return 1",
    new: "    return 2",
  });
  assert.equal(
    out,
    'Error: Cannot edit "a.py": old was not found in the file, but it matches when whitespace ' +
      "is ignored (at line 2): re-read those lines with file_read and copy old exactly " +
      "(indentation, tabs and trailing spaces count)",
  );
});

Deno.test("file_edit points out line-number prefixes copied from file_read", async () => {
  await using wt = await tempWorktree({ "a.txt": "one\ntwo\n" });
  const out = await runTool(wt, "file_edit", { path: "a.txt", old: "1\tone\n2\ttwo", new: "x" });
  assert.equal(
    out,
    'Error: Cannot edit "a.txt": old was not found in the file: old starts its lines with ' +
      "line numbers from file_read: remove the line-number prefixes and call file_edit again",
  );
});

Deno.test("file_edit hints at a CRLF-normalised match in a mixed file", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\nb\nc\r\nd\n" });
  const out = await runTool(wt, "file_edit", { path: "a.txt", old: "c\nd", new: "x" });
  assert.equal(
    out,
    'Error: Cannot edit "a.txt": old was not found in the file as given, but it matches when ' +
      "CR characters are ignored: the file mixes CRLF and LF line endings: write old with the " +
      "exact \\r\\n or \\n of those lines, or use file_write",
  );
});

Deno.test("file_edit matches and writes CRLF in a CRLF file", async () => {
  await using wt = await tempWorktree({ "w.txt": "one\r\ntwo\r\nthree\r\n" });
  const out = await runTool(wt, "file_edit", {
    path: "w.txt",
    old: "one\ntwo\n",
    new: "uno\ndos\nextra\n",
  });
  assert.equal(out, "Edited w.txt: 1 replacement at line 1 (+3 -2 lines)");
  assert.equal(await wt.read("w.txt"), "uno\r\ndos\r\nextra\r\nthree\r\n");
});

Deno.test("file_edit writes LF when new has CRLF but the file is LF", async () => {
  await using wt = await tempWorktree({ "l.txt": "a\nb\n" });
  await runTool(wt, "file_edit", { path: "l.txt", old: "a\r\nb", new: "c\r\nd" });
  assert.equal(await wt.read("l.txt"), "c\nd\n");
});

Deno.test("file_edit keeps a UTF-8 byte-order mark", async () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
  await using wt = await tempWorktree({
    "b.txt": new Uint8Array([...bom, ...encoder.encode("héllo\r\n")]),
  });
  const out = await runTool(wt, "file_edit", { path: "b.txt", old: "héllo", new: "hi\nthere" });
  assert.equal(out, "Edited b.txt: 1 replacement at line 1 (+2 -1 lines)");
  assert.deepEqual(
    await Deno.readFile(join(wt.path, "b.txt")),
    new Uint8Array([...bom, ...encoder.encode("hi\r\nthere\r\n")]),
  );
});

Deno.test("file_edit refuses identical old and new", async () => {
  await using wt = await tempWorktree({ "a.txt": "same\n" });
  assert.equal(
    await runTool(wt, "file_edit", { path: "a.txt", old: "same", new: "same" }),
    'Error: Cannot edit "a.txt": old and new are identical, so nothing would change: put the ' +
      "replacement text in new",
  );
});

Deno.test("file_edit refuses an empty old", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  assert.equal(
    await runTool(wt, "file_edit", { path: "a.txt", old: "", new: "y" }),
    'Error: Cannot edit "a.txt": old is empty: put the text to replace in old (to insert, ' +
      "include a neighbouring line), or use file_write to create the file",
  );
});

Deno.test("file_edit refuses an edit that only changes line endings", async () => {
  await using wt = await tempWorktree({ "w.txt": "a\r\nb\r\n" });
  assert.equal(
    await runTool(wt, "file_edit", { path: "w.txt", old: "a\r\nb", new: "a\nb" }),
    'Error: Cannot edit "w.txt": old and new differ only in line endings, which follow the ' +
      "file: nothing would change; use run_command to convert line endings",
  );
});

Deno.test("file_edit reports a missing file", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "file_edit", { path: "nope.txt", old: "a", new: "b" }),
    'Error: Cannot edit "nope.txt": the file does not exist: check the path with list_dir or ' +
      "glob, or create the file with file_write",
  );
});

Deno.test("file_edit refuses a directory and a non-UTF-8 file", async () => {
  await using wt = await tempWorktree({
    "d/x.txt": "x",
    "bin.dat": new Uint8Array([0xff, 0xfe, 0x00, 0x41]),
  });
  assert.equal(
    await runTool(wt, "file_edit", { path: "d", old: "a", new: "b" }),
    'Error: Cannot edit "d": it is not a regular file: give a file\'s path',
  );
  assert.equal(
    await runTool(wt, "file_edit", { path: "bin.dat", old: "A", new: "B" }),
    'Error: Cannot edit "bin.dat": it is not UTF-8 text: file_edit changes text files only; ' +
      "use run_command for binary files",
  );
});

Deno.test("file_edit keeps the file mode and leaves no temporary file", async () => {
  await using wt = await tempWorktree({ "run.sh": "#!/bin/sh\necho hi\n" });
  await Deno.chmod(join(wt.path, "run.sh"), 0o751);
  await runTool(wt, "file_edit", { path: "run.sh", old: "hi", new: "bye" });
  assert.equal((await Deno.stat(join(wt.path, "run.sh"))).mode! & 0o777, 0o751);
  const names = (await Array.fromAsync(Deno.readDir(wt.path))).map((e) => e.name);
  assert.deepEqual(names, ["run.sh"]);
});

Deno.test("file_edit edits a symlink's target and keeps the link", async () => {
  await using wt = await tempWorktree({ "real.txt": "v1\n" });
  await Deno.symlink("real.txt", join(wt.path, "link.txt"));
  await runTool(wt, "file_edit", { path: "link.txt", old: "v1", new: "v2" });
  assert.equal((await Deno.lstat(join(wt.path, "link.txt"))).isSymlink, true);
  assert.equal(await wt.read("real.txt"), "v2\n");
});

Deno.test("file_edit answers to its alias edit", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  assert.equal(
    await runTool(wt, "edit", { path: "a.txt", old: "x", new: "y" }),
    "Edited a.txt: 1 replacement at line 1 (+1 -1 lines)",
  );
});

Deno.test("file_edit status previews the edit as a unified diff", async () => {
  const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\r\n") + "\r\n";
  await using wt = await tempWorktree({ "p.txt": lines });
  const sink = new RecordingSink();
  await invokeInWorktree(wt, "file_edit", { path: "p.txt", old: "line 5", new: "five\n5" }, {
    sink,
  });
  const call = sink.events.find((e) => e.type === "tool_call");
  assert.equal(
    call?.type === "tool_call" ? call.activity.status : undefined,
    [
      "p.txt (+2 -1 lines)",
      "@@ -2,7 +2,8 @@",
      " line 2",
      " line 3",
      " line 4",
      "-line 5",
      "+five",
      "+5",
      " line 6",
      " line 7",
      " line 8",
    ].join("\n"),
  );
});

Deno.test("file_edit status shows why the edit cannot run", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  const sink = new RecordingSink();
  await invokeInWorktree(wt, "file_edit", { path: "a.txt", old: "zzz", new: "y" }, { sink });
  const call = sink.events.find((e) => e.type === "tool_call");
  assert.equal(
    call?.type === "tool_call" ? call.activity.status : undefined,
    '(no preview: Cannot edit "a.txt": old was not found in the file: re-read the file with ' +
      "file_read and copy old exactly as it appears)",
  );
});

Deno.test("file_edit outside the worktree needs confirmation", async () => {
  await using outside = await tempWorktree({ "o.txt": "o\n" });
  await using wt = await tempWorktree();
  const out = await runTool(wt, "file_edit", {
    path: join(outside.path, "o.txt"),
    old: "o",
    new: "p",
  }, { headless: "no" });
  assert.equal(
    out,
    "Error: file_edit needs confirmation (outside worktree) and this headless run cannot ask: " +
      "it was denied; continue without it (the operator can rerun with --yes)",
  );
  assert.equal(await outside.read("o.txt"), "o\n");
});
