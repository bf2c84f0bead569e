import assert from "node:assert/strict";
import { runTool, tempWorktree } from "../../tests/support/worktree.ts";

Deno.test("code_format runs deno fmt and rewrites the file", async () => {
  await using wt = await tempWorktree({ "deno.json": "{}\n", "a.ts": "const  y=1\nexport {y}\n" });
  const out = await runTool(wt, "code_format", {});
  assert.equal(
    out,
    `$ deno fmt\nexit 0\nsummary: Checked 2 files\n\n${wt.path}/a.ts\nChecked 2 files`,
  );
  assert.equal(await wt.read("a.ts"), "const y = 1;\nexport { y };\n");
});

Deno.test("code_format appends the files to format", async () => {
  await using wt = await tempWorktree({
    "deno.json": "{}\n",
    "a.ts": "const  a=1\nexport {a}\n",
    "b.ts": "const  b=1\nexport {b}\n",
  });
  await runTool(wt, "code_format", { args: ["b.ts"] });
  assert.equal(await wt.read("a.ts"), "const  a=1\nexport {a}\n");
  assert.equal(await wt.read("b.ts"), "const b = 1;\nexport { b };\n");
});

Deno.test("code_format uses dev.format_cmd when set", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "code_format", {}, { config: { "dev.format_cmd": "printf 'done\\n'" } }),
    "$ printf 'done\\n'\nexit 0\n\ndone",
  );
});
