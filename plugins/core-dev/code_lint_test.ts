import assert from "node:assert/strict";
import { runTool, tempWorktree } from "../../tests/support/worktree.ts";

Deno.test("code_lint runs deno lint and reports the problems", async () => {
  await using wt = await tempWorktree({
    "deno.json": "{}\n",
    "a.ts": "let x = 1;\nexport { x };\n",
  });
  const out = await runTool(wt, "code_lint", {});
  assert.equal(out.split("\n\n")[0], "$ deno lint\nexit 1\nsummary: Found 1 problem");
  assert.match(out, /error\[prefer-const\]: `x` is never reassigned/);
});

Deno.test("code_lint passes on clean code", async () => {
  await using wt = await tempWorktree({ "deno.json": "{}\n", "a.ts": "export const x = 1;\n" });
  assert.equal(
    await runTool(wt, "code_lint", {}),
    "$ deno lint\nexit 0\nsummary: Checked 1 file\n\nChecked 1 file",
  );
});

Deno.test("code_lint runs a package.json lint script", async () => {
  await using wt = await tempWorktree({
    "package.json": JSON.stringify({ scripts: { lint: "echo linted" } }),
  });
  const out = await runTool(wt, "code_lint", {});
  assert.equal(out.split("\n\n")[0], "$ npm run lint\nexit 0");
  assert.match(out, /^linted$/m);
});
