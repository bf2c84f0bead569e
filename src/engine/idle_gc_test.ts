import assert from "node:assert/strict";

const PROBE = (module: string) => `
import { collectWhenIdle } from ${JSON.stringify(module)};
// Garbage the young generation has moved to the old one: only a full collection frees it.
let keep = [];
for (let i = 0; i < 40; i++) keep.push(new Array(100_000).fill(i));
await new Promise((r) => setTimeout(r, 0));
keep = null;
const before = Deno.memoryUsage().heapUsed;
collectWhenIdle();
await new Promise((r) => setTimeout(r, 0));
await new Promise((r) => setTimeout(r, 0));
console.log(JSON.stringify({ before, after: Deno.memoryUsage().heapUsed }));
`;

Deno.test("collectWhenIdle frees the old generation's garbage once the prompt is drawn, with --expose-gc", async () => {
  const module = new URL("./idle_gc.ts", import.meta.url).href;
  const run = async (flags: string[]) => {
    const cmd = new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", ...flags, "-"],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = cmd.stdin.getWriter();
    await writer.write(new TextEncoder().encode(PROBE(module)));
    await writer.close();
    const out = await cmd.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return JSON.parse(new TextDecoder().decode(out.stdout)) as { before: number; after: number };
  };
  const collected = await run(["--v8-flags=--expose-gc"]);
  // 40 arrays of 100,000 small integers: about 32 MB of garbage, gone after the collection.
  assert.ok(
    collected.before - collected.after > 16_000_000,
    `freed ${collected.before - collected.after} bytes`,
  );
  // Without the flag there is no gc() to call: the REPL goes on as before (V8 may still collect on
  // its own, so the figures say nothing here).
  await run([]);
});
