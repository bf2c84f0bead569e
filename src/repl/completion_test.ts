import assert from "node:assert/strict";
import { tempWorktree } from "../../tests/support/worktree.ts";
import { completeLine, type CompletionSources } from "./completion.ts";

function sources(worktree: string): CompletionSources {
  const argumentTable: Record<string, string[]> = {
    tool: ["file_read", "file_write", "grep"],
    help: ["file_read", "file_write", "grep"],
    mode: ["default", "plan"],
  };
  return {
    commands: ["help", "tool", "tools", "mode", "model", "exit"],
    argumentsOf: (command) => argumentTable[command],
    worktree,
    home: null,
  };
}

Deno.test("completeLine completes command names", async () => {
  await using wt = await tempWorktree();
  assert.deepEqual(await completeLine("/he", sources(wt.path)), [["/help"], "/he"]);
  assert.deepEqual(await completeLine("/to", sources(wt.path)), [["/tool", "/tools"], "/to"]);
  assert.deepEqual(await completeLine("/zz", sources(wt.path)), [[], "/zz"]);
});

Deno.test("completeLine completes tool and mode names as the first argument", async () => {
  await using wt = await tempWorktree();
  assert.deepEqual(await completeLine("/tool file_", sources(wt.path)), [
    ["file_read", "file_write"],
    "file_",
  ]);
  assert.deepEqual(await completeLine("/help g", sources(wt.path)), [["grep"], "g"]);
  assert.deepEqual(await completeLine("/mode p", sources(wt.path)), [["plan"], "p"]);
});

Deno.test("completeLine completes paths relative to the worktree", async () => {
  await using wt = await tempWorktree({
    "README.md": "",
    "src/main.ts": "",
    "src/mod.ts": "",
    ".hidden": "",
  });
  const s = sources(wt.path);
  assert.deepEqual(await completeLine("explain RE", s), [["README.md"], "RE"]);
  assert.deepEqual(await completeLine("look at s", s), [["src/"], "s"]);
  assert.deepEqual(await completeLine("open src/m", s), [["src/main.ts", "src/mod.ts"], "src/m"]);
  assert.deepEqual(await completeLine('/tool file_read {"path":"READ', s), [["README.md"], "READ"]);
  assert.deepEqual(await completeLine("x .h", s), [[".hidden"], ".h"]);
  assert.deepEqual(await completeLine("x ", s), [["README.md", "src/"], ""]);
  assert.deepEqual(await completeLine("x nowhere/a", s), [[], "nowhere/a"]);
});

Deno.test("completeLine completes the path of an @mention and keeps the @", async () => {
  await using wt = await tempWorktree({ "README.md": "x", "src/app.ts": "y" });
  assert.deepEqual(await completeLine("look at @REA", sources(wt.path)), [["@README.md"], "@REA"]);
  assert.deepEqual(await completeLine("@src/a", sources(wt.path)), [["@src/app.ts"], "@src/a"]);
});
