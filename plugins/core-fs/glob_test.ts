import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolRegistry } from "../../src/tools/mod.ts";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import { age } from "../../tests/support/file_ages.ts";
import { createGlob, globSpec } from "./glob.ts";

Deno.test("glob matches a name pattern at any depth, newest first", async () => {
  await using wt = await tempWorktree({
    "a.ts": "",
    "src/b.ts": "",
    "src/deep/c.ts": "",
    "src/d.js": "",
  });
  await age(wt.path, ["src/deep/c.ts", "a.ts", "src/b.ts", "src/d.js"]);
  assert.equal(
    await runTool(wt, "glob", { pattern: "*.ts" }),
    "src/deep/c.ts\na.ts\nsrc/b.ts",
  );
});

Deno.test("glob anchors a pattern with a slash to the folder searched", async () => {
  await using wt = await tempWorktree({
    "src/a.ts": "",
    "src/sub/b.ts": "",
    "test/src/c.ts": "",
  });
  await age(wt.path, ["src/a.ts", "src/sub/b.ts", "test/src/c.ts"]);
  assert.equal(await runTool(wt, "glob", { pattern: "src/*.ts" }), "src/a.ts");
  assert.equal(
    await runTool(wt, "glob", { pattern: "src/**/*.ts" }),
    "src/a.ts\nsrc/sub/b.ts",
  );
  assert.equal(
    await runTool(wt, "glob", { pattern: "*.ts", path: "test" }),
    "test/src/c.ts",
  );
});

Deno.test("glob honours .gitignore files, nested ones too, and skips .git and node_modules", async () => {
  await using wt = await tempWorktree({
    ".gitignore": "dist/\n*.log\n",
    "dist/out.js": "",
    "app.log": "",
    "keep.js": "",
    "lib/.gitignore": "*.js\n!main.js\n",
    "lib/main.js": "",
    "lib/helper.js": "",
    ".git/hooks/pre.js": "",
    "node_modules/x/index.js": "",
    ".config/tool.js": "",
  });
  await age(wt.path, ["keep.js", "lib/main.js", ".config/tool.js"]);
  assert.equal(
    await runTool(wt, "glob", { pattern: "*.{js,log}" }),
    "keep.js\nlib/main.js\n.config/tool.js",
  );
});

Deno.test("glob returns a note when nothing matches", async () => {
  await using wt = await tempWorktree({ "a.ts": "", "src/b.ts": "" });
  const sink = new RecordingSink();
  const outcome = await invokeInWorktree(wt, "glob", { pattern: "*.py" }, { sink });
  assert.equal(outcome.output, '(no files match "*.py")');
  const result = sink.events.find((e) => e.type === "tool_result");
  assert.equal(result?.type === "tool_result" && result.is_note, true);
  assert.equal(
    await runTool(wt, "glob", { pattern: "*.py", path: "src" }),
    '(no files match "*.py" in src)',
  );
});

Deno.test("glob caps a long list and says how many were left out", async () => {
  await using wt = await tempWorktree();
  for (let i = 0; i < 230; i++) await wt.write(`f/${String(i).padStart(3, "0")}.txt`, "");
  const lines = (await runTool(wt, "glob", { pattern: "*.txt" })).split("\n");
  assert.equal(lines.length, 201);
  assert.equal(
    lines.at(-1),
    "... (showing 200 of 230 files, most recently modified first: narrow the pattern or the path)",
  );
});

Deno.test("glob's walk returns what it found with a note when its time budget runs out", async () => {
  await using wt = await tempWorktree({ "a.ts": "" });
  const registry = new ToolRegistry();
  registry.register(globSpec, createGlob({ engine: "builtin", budgetMs: 0 }));
  assert.equal(
    await runTool(wt, "glob", { pattern: "*.ts" }, { registry }),
    '(no files match "*.ts" in the part searched: stopped after 0 ms: 0 files looked at, ' +
      "1 folder not yet read; narrow with path=)",
  );
});

Deno.test("glob's walk stops at its result budget and says what it left unread", async () => {
  const files: Record<string, string> = {};
  for (let d = 0; d < 5; d++) for (let f = 0; f < 10; f++) files[`d${d}/f${f}.ts`] = "";
  await using wt = await tempWorktree(files);
  const registry = new ToolRegistry();
  registry.register(globSpec, createGlob({ engine: "builtin", maxResults: 10 }));
  const lines = (await runTool(wt, "glob", { pattern: "*.ts" }, { registry })).split("\n");
  // The walk reads one folder at a time: it stops after the first full folder.
  assert.equal(lines.length, 11);
  assert.equal(
    lines.at(-1),
    "(partial results: stopped at 10 matching files (search.max_results): 10 files looked " +
      "at, 4 folders not yet read; narrow with path=)",
  );
});

Deno.test("glob does not follow a symlink out of the worktree", async () => {
  await using outside = await tempWorktree({ "secret.ts": "" });
  await using wt = await tempWorktree({ "a.ts": "" });
  await Deno.symlink(outside.path, join(wt.path, "linked"));
  await Deno.symlink(join(outside.path, "secret.ts"), join(wt.path, "file.ts"));
  assert.equal(await runTool(wt, "glob", { pattern: "*.ts" }), "a.ts");
});

Deno.test("glob refuses a file as the folder and a pattern outside it", async () => {
  await using wt = await tempWorktree({ "a.ts": "" });
  assert.equal(
    await runTool(wt, "glob", { pattern: "*.ts", path: "a.ts" }),
    'Error: Cannot glob in "a.ts": it is a file: set path to a folder, or use file_read',
  );
  assert.equal(
    await runTool(wt, "glob", { pattern: "/etc/*.conf" }),
    'Error: Cannot glob "/etc/*.conf": it is outside the folder searched: set path to the ' +
      "folder and give pattern relative to it",
  );
  assert.equal(
    await runTool(wt, "glob", { pattern: join(wt.path, "*.ts") }),
    "a.ts",
  );
});
