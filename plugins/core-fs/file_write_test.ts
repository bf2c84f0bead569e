import assert from "node:assert/strict";
import { join } from "node:path";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import type { TurnEvent } from "../../src/ui/events.ts";

function statusOf(events: TurnEvent[]): string | undefined {
  const call = events.find((e) => e.type === "tool_call");
  return call?.type === "tool_call" ? call.activity.status : undefined;
}

Deno.test("file_write creates a file and its missing parents", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "file_write", { path: "src/deep/a.ts", content: "one\ntwo\n" }),
    "Created src/deep/a.ts (2 lines, 8 chars)",
  );
  assert.equal(await wt.read("src/deep/a.ts"), "one\ntwo\n");
});

Deno.test("file_write overwrites in place of the old file, keeping its mode", async () => {
  await using wt = await tempWorktree({ "run.sh": "echo old\n" });
  await Deno.chmod(join(wt.path, "run.sh"), 0o750);
  assert.equal(
    await runTool(wt, "write", { path: "run.sh", content: "echo new" }),
    "Overwrote run.sh (1 line, 8 chars)",
  );
  assert.equal(await wt.read("run.sh"), "echo new");
  assert.equal((await Deno.stat(join(wt.path, "run.sh"))).mode! & 0o777, 0o750);
  const names = [];
  for await (const entry of Deno.readDir(wt.path)) names.push(entry.name);
  assert.deepEqual(names, ["run.sh"]);
});

Deno.test("file_write appends, and creates the file when it is missing", async () => {
  await using wt = await tempWorktree({ "log.txt": "a\n" });
  assert.equal(
    await runTool(wt, "file_write", { path: "log.txt", content: "b\nc\n", mode: "append" }),
    "Appended 2 lines, 4 chars to log.txt",
  );
  assert.equal(await wt.read("log.txt"), "a\nb\nc\n");
  assert.equal(
    await runTool(wt, "file_write", { path: "new.txt", content: "x", mode: "append" }),
    "Created new.txt (1 line, 1 char)",
  );
});

Deno.test("file_write writes an empty file", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "file_write", { path: "empty", content: "" }),
    "Created empty (0 lines, 0 chars)",
  );
  assert.equal(await wt.read("empty"), "");
});

Deno.test("file_write refuses a directory and a path through a file", async () => {
  await using wt = await tempWorktree({ "src/a.ts": "", "notes.txt": "" });
  assert.equal(
    await runTool(wt, "file_write", { path: "src", content: "x" }),
    'Error: Cannot write "src": it is a directory: give a file path inside it',
  );
  assert.equal(
    await runTool(wt, "file_write", { path: "notes.txt/inner.txt", content: "x" }),
    'Error: Cannot write "notes.txt/inner.txt": a part of its folder path is a file: ' +
      "choose another path",
  );
});

Deno.test("file_write previews a new file's first lines in its status", async () => {
  await using wt = await tempWorktree();
  const sink = new RecordingSink();
  const content = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  await invokeInWorktree(wt, "file_write", { path: "a.txt", content }, { sink });
  const lines = statusOf(sink.events)!.split("\n");
  assert.deepEqual(lines.slice(0, 3), ["a.txt", "+line 1", "+line 2"]);
  assert.equal(lines.length, 42);
  assert.equal(lines.at(-1), "... (5 more lines)");
});

Deno.test("file_write shows a unified diff against the current file in its status", async () => {
  await using wt = await tempWorktree({ "a.txt": "one\ntwo\nthree\n" });
  const sink = new RecordingSink();
  await invokeInWorktree(wt, "file_write", { path: "a.txt", content: "one\n2\nthree\n" }, {
    sink,
  });
  assert.equal(statusOf(sink.events), "a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three");
  const same = new RecordingSink();
  await invokeInWorktree(wt, "file_write", { path: "a.txt", content: "one\n2\nthree\n" }, {
    sink: same,
  });
  assert.equal(statusOf(same.events), "a.txt\n(no changes)");
});

Deno.test("file_write through a symlink leading outside the worktree asks first", async () => {
  await using outside = await tempWorktree({ "target.txt": "keep\n" });
  await using wt = await tempWorktree();
  await Deno.symlink(join(outside.path, "target.txt"), join(wt.path, "link.txt"));
  assert.equal(
    await runTool(wt, "file_write", { path: "link.txt", content: "changed\n" }, {
      headless: "no",
    }),
    "Error: file_write needs confirmation (outside worktree) and this headless run cannot ask: " +
      "it was denied; continue without it (the operator can rerun with --yes)",
  );
  assert.equal(await outside.read("target.txt"), "keep\n");
});
