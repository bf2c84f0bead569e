import assert from "node:assert/strict";
import { join } from "node:path";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";

Deno.test("file_read numbers the lines under a header with the file's size", async () => {
  await using wt = await tempWorktree({ "src/a.txt": "one\ntwo\nthree\n" });
  assert.equal(
    await runTool(wt, "file_read", { path: "src/a.txt" }),
    "# src/a.txt - 3 lines, 14 chars\n1\tone\n2\ttwo\n3\tthree",
  );
});

Deno.test("file_read shows a window and says which offset comes next", async () => {
  const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
  await using wt = await tempWorktree({ "a.txt": text });
  assert.equal(
    await runTool(wt, "file_read", { path: "a.txt", offset: 9, limit: 2 }),
    [
      `# a.txt - 12 lines, ${text.length} chars (showing 9-10)`,
      " 9\tline 9",
      "10\tline 10",
      "Showing lines 9-10 of 12: call again with offset=11",
    ].join("\n"),
  );
  assert.equal(
    await runTool(wt, "file_read", { path: "a.txt", offset: 11 }),
    `# a.txt - 12 lines, ${text.length} chars (showing 11-12)\n11\tline 11\n12\tline 12`,
  );
});

Deno.test("file_read takes the read alias and the cursor parameter alias", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\ny\n" });
  assert.equal(
    await runTool(wt, "read", { path: "a.txt", cursor: 2 }),
    "# a.txt - 2 lines, 4 chars (showing 2-2)\n2\ty",
  );
});

Deno.test("file_read with limit 0 returns only the header", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\ny\nz" });
  assert.equal(
    await runTool(wt, "file_read", { path: "a.txt", limit: 0 }),
    "# a.txt - 3 lines, 5 chars",
  );
});

Deno.test("file_read shows a last line without a newline", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\ny" });
  assert.equal(
    await runTool(wt, "file_read", { path: "a.txt" }),
    "# a.txt - 2 lines, 3 chars\n1\tx\n2\ty",
  );
});

Deno.test("file_read returns an empty file as a note", async () => {
  await using wt = await tempWorktree({ "empty.txt": "" });
  const sink = new RecordingSink();
  const outcome = await invokeInWorktree(wt, "file_read", { path: "empty.txt" }, { sink });
  assert.equal(outcome.output, "(empty file)");
  const result = sink.events.find((e) => e.type === "tool_result");
  assert.equal(result?.type === "tool_result" && result.is_note, true);
});

Deno.test("file_read strips CRLF line endings and says so", async () => {
  await using wt = await tempWorktree({ "dos.txt": "a\r\nb\r\n" });
  assert.equal(
    await runTool(wt, "file_read", { path: "dos.txt" }),
    "# dos.txt - 2 lines, 6 chars, CRLF line endings\n1\ta\n2\tb",
  );
});

Deno.test("file_read shows invalid UTF-8 as replacement characters", async () => {
  const bytes = new Uint8Array([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0x0a, 0xc3, 0xa9, 0x0a]);
  await using wt = await tempWorktree({ "latin.txt": bytes });
  assert.equal(
    await runTool(wt, "file_read", { path: "latin.txt" }),
    "# latin.txt - 2 lines, 8 chars\n1\tok \uFFFD\uFFFD\n2\té",
  );
});

Deno.test("file_read describes a binary file instead of showing it", async () => {
  const png = new Uint8Array(2048);
  png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  await using wt = await tempWorktree({ "logo.png": png, "blob.bin": new Uint8Array(10) });
  assert.equal(
    await runTool(wt, "file_read", { path: "logo.png" }),
    "# logo.png - binary file (PNG image), 2.0 KB: not shown as text",
  );
  assert.equal(
    await runTool(wt, "file_read", { path: "blob.bin" }),
    "# blob.bin - binary file (unknown type), 10 B: not shown as text",
  );
});

Deno.test("file_read points from a directory to list_dir", async () => {
  await using wt = await tempWorktree({ "src/a.txt": "x" });
  assert.equal(
    await runTool(wt, "file_read", { path: "src" }),
    'Error: Cannot read "src": it is a directory: use list_dir to see its entries',
  );
});

Deno.test("file_read says how to find a missing file", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "file_read", { path: "nope.txt" }),
    'Error: Cannot read "nope.txt": no such file: check the path with list_dir or glob',
  );
});

Deno.test("file_read refuses an offset past the end with the valid range", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\ny\n" });
  assert.equal(
    await runTool(wt, "file_read", { path: "a.txt", offset: 5 }),
    'Error: Cannot read "a.txt" from line 5: it has 2 lines: call again with an offset from 1 to 2',
  );
});

Deno.test("file_read cuts a very long line", async () => {
  await using wt = await tempWorktree({ "min.js": "x".repeat(10_000) + "\nend\n" });
  const out = await runTool(wt, "file_read", { path: "min.js" });
  assert.equal(
    out,
    `# min.js - 2 lines, 10005 chars\n1\t${"x".repeat(4000)} ... (line cut after 4000 chars)\n` +
      "2\tend",
  );
});

Deno.test("file_read ends the window early at the result cap and says where to go on", async () => {
  const text = Array.from({ length: 100 }, (_, i) => `${i + 1}`.padStart(3, "0") + "-".repeat(47))
    .join("\n") + "\n";
  await using wt = await tempWorktree({ "a.txt": text });
  const out = await runTool(wt, "file_read", { path: "a.txt" }, {
    config: { tool_max_result_chars: 1000 },
  });
  const lines = out.split("\n");
  // 300 chars are kept for the frame, so 700 fit: 13 numbered lines of 53 or 54 chars.
  assert.equal(lines[0], `# a.txt - 100 lines, ${text.length} chars (showing 1-13)`);
  assert.equal(lines.length, 15);
  assert.equal(
    lines.at(-1),
    "Showing lines 1-13 of 100 (output limit reached): call again with offset=14",
  );
});

Deno.test("file_read streams a window from deep in a file larger than one chunk", async () => {
  await using wt = await tempWorktree();
  // 3 MB of numbered lines: windows cross the 1 MB chunk boundaries.
  const count = 150_000;
  const lines = Array.from({ length: count }, (_, i) => `row ${i + 1} ${"é".repeat(i % 7)}`);
  const text = lines.join("\n") + "\n";
  await wt.write("big.txt", text);
  const firstChunkLine = text.slice(0, 1 << 20).split("\n").length;
  const offset = firstChunkLine - 2;
  const out = await runTool(wt, "file_read", { path: "big.txt", offset, limit: 5 });
  const expected = lines.slice(offset - 1, offset + 4)
    .map((line, i) => `${offset + i}\t${line}`);
  assert.equal(
    out,
    [
      `# big.txt - ${count} lines, ${text.length} chars (showing ${offset}-${offset + 4})`,
      ...expected,
      `Showing lines ${offset}-${offset + 4} of ${count}: call again with offset=${offset + 5}`,
    ].join("\n"),
  );
  const tail = await runTool(wt, "file_read", { path: "big.txt", offset: count - 1 });
  assert.equal(
    tail,
    `# big.txt - ${count} lines, ${text.length} chars (showing ${count - 1}-${count})\n` +
      `${count - 1}\t${lines[count - 2]}\n${count}\t${lines[count - 1]}`,
  );
});

Deno.test({
  name: "file_read reads a file whose size says 0 (procfs) to its end",
  ignore: Deno.build.os !== "linux",
  async fn() {
    // procfs reports size 0 for files that hold kilobytes: the read must not trust the size it
    // sized its buffer by. /proc/crypto holds several buffers' worth and does not change.
    await using wt = await tempWorktree();
    const text = Deno.readTextFileSync("/proc/crypto");
    assert.equal(Deno.statSync("/proc/crypto").size, 0);
    assert.ok(text.length > 8192, `/proc/crypto is ${text.length} chars`);
    const lines = text.split("\n").length - 1;
    const out = await runTool(wt, "file_read", { path: "/proc/crypto", limit: 0 }, {
      headless: "yes",
    });
    assert.equal(out, `# /proc/crypto - ${lines} lines, ${text.length} chars`);
  },
});

Deno.test("file_read of a symlink leading outside the worktree asks first", async () => {
  await using outside = await tempWorktree({ "secret.txt": "s\n" });
  await using wt = await tempWorktree();
  await Deno.symlink(join(outside.path, "secret.txt"), join(wt.path, "link.txt"));
  assert.equal(
    await runTool(wt, "file_read", { path: "link.txt" }, { headless: "no" }),
    "Error: file_read needs confirmation (outside worktree) and this headless run cannot ask: " +
      "it was denied; continue without it (the operator can rerun with --yes)",
  );
  assert.equal(
    await runTool(wt, "file_read", { path: "link.txt" }, { headless: "yes" }),
    `# ${join(outside.path, "secret.txt")} - 1 line, 2 chars\n1\ts`,
  );
});

Deno.test({
  name: "file_read names the --allow-read flag a path outside the granted ones needs",
  permissions: { read: [new URL(".", import.meta.url).pathname] },
  async fn() {
    const wt = { path: new URL(".", import.meta.url).pathname.replace(/\/$/, "") };
    assert.equal(
      await runTool(wt, "file_read", { path: "/etc/hostname" }),
      'Error: Cannot read "/etc/hostname": replio was started without read access there: ' +
        "restart it with --allow-read=/etc/hostname (or a parent directory)",
    );
  },
});
