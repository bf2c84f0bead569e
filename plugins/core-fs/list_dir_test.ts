import assert from "node:assert/strict";
import { join } from "node:path";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";

Deno.test("list_dir lists directories first, then files with sizes", async () => {
  await using wt = await tempWorktree({
    "b.txt": "x".repeat(2048),
    "A.md": "hi",
    "src/main.ts": "",
    "docs/guide.md": "",
  });
  assert.equal(
    await runTool(wt, "list_dir", {}),
    "# . - 2 directories, 2 files\ndocs/\nsrc/\nA.md  2 B\nb.txt  2.0 KB",
  );
});

Deno.test("list_dir shows deeper levels indented under their directory", async () => {
  await using wt = await tempWorktree({
    "src/cli/main.ts": "abc",
    "src/util.ts": "",
    "README.md": "",
  });
  assert.equal(
    await runTool(wt, "ls", { path: "src", depth: 2 }),
    "# src - 1 directory, 2 files\ncli/\n  main.ts  3 B\nutil.ts  0 B",
  );
  assert.equal(
    await runTool(wt, "list_dir", { depth: 3 }),
    "# . - 2 directories, 3 files\nsrc/\n  cli/\n    main.ts  3 B\n  util.ts  0 B\nREADME.md  0 B",
  );
});

Deno.test("list_dir skips version-control and dependency folders", async () => {
  await using wt = await tempWorktree({
    ".git/HEAD": "ref",
    "node_modules/pkg/index.js": "",
    ".github/ci.yml": "",
    "a.ts": "",
  });
  assert.equal(
    await runTool(wt, "list_dir", { depth: 2 }),
    "# . - 1 directory, 2 files\n.github/\n  ci.yml  0 B\na.ts  0 B",
  );
  assert.equal(
    await runTool(wt, "list_dir", { path: "node_modules" }),
    "# node_modules - 1 directory, 0 files\npkg/",
  );
});

Deno.test("list_dir caps the entries at list_dir_max_entries, top level first", async () => {
  const files: Record<string, string> = { "sub/x.txt": "", "sub/y.txt": "" };
  for (let i = 1; i <= 5; i++) files[`f${i}.txt`] = "";
  await using wt = await tempWorktree(files);
  assert.equal(
    await runTool(wt, "list_dir", { depth: 2 }, { config: { list_dir_max_entries: 4 } }),
    [
      "# . - 1 directory, 7 files",
      "sub/",
      "f1.txt  0 B",
      "f2.txt  0 B",
      "f3.txt  0 B",
      "... (showing first 4 of 8 entries)",
    ].join("\n"),
  );
});

Deno.test("list_dir returns an empty directory as a note", async () => {
  await using wt = await tempWorktree();
  await Deno.mkdir(join(wt.path, "empty"));
  const sink = new RecordingSink();
  const outcome = await invokeInWorktree(wt, "list_dir", { path: "empty" }, { sink });
  assert.equal(outcome.output, "(empty directory)");
  const result = sink.events.find((e) => e.type === "tool_result");
  assert.equal(result?.type === "tool_result" && result.is_note, true);
});

Deno.test("list_dir points from a file to file_read and from a missing path to its parent", async () => {
  await using wt = await tempWorktree({ "a.txt": "" });
  assert.equal(
    await runTool(wt, "list_dir", { path: "a.txt" }),
    'Error: Cannot list "a.txt": it is a file: use file_read to read it',
  );
  assert.equal(
    await runTool(wt, "list_dir", { path: "nope" }),
    'Error: Cannot list "nope": no such directory: list its parent to check the name',
  );
});

Deno.test("list_dir shows symlinks with their target and does not follow them", async () => {
  await using outside = await tempWorktree({ "secret/key.txt": "k" });
  await using wt = await tempWorktree({ "a.txt": "" });
  await Deno.symlink(join(outside.path, "secret"), join(wt.path, "out"));
  assert.equal(
    await runTool(wt, "list_dir", { depth: 3 }),
    `# . - 0 directories, 2 files\na.txt  0 B\nout -> ${join(outside.path, "secret")}`,
  );
  assert.equal(
    await runTool(wt, "list_dir", { path: "out" }, { headless: "no" }),
    "Error: list_dir needs confirmation (outside worktree) and this headless run cannot ask: " +
      "it was denied; continue without it (the operator can rerun with --yes)",
  );
});
