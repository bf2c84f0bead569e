/**
 * grep's two engines: the same text from both on awkward files, patterns and sizes, and which
 * engine runs (REPLIO_GREP_ENGINE, ripgrep missing or refusing, a small tree searched here).
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type TempWorktree, tempWorktree } from "../../tests/support/worktree.ts";
import { exists } from "../../tests/support/exists.ts";
import { age } from "../../tests/support/file_ages.ts";
import { grepBoth } from "../../tests/support/grep_engines.ts";
import { toolInChild } from "../../tests/support/tool_in_child.ts";
import { SMALL_TREE_BYTES, SMALL_TREE_FILES } from "./_small_tree.ts";

const encoder = new TextEncoder();

Deno.test("grep engines give identical text on awkward files", async () => {
  const long = "x".repeat(600) + " needle " + "y".repeat(600);
  await using wt = await tempWorktree({
    "crlf.txt": "a\r\nneedle one\r\nb\r\n",
    "latin.txt": new Uint8Array([...encoder.encode("needle "), 0xe9, 0xff, 0x0a]),
    "long.txt": `${long}\n`,
    "bom.ts": "\uFEFFneedle first\nsecond needle\n",
    "notrail.txt": "x\nneedle last",
    "empty.txt": "",
    "blank.txt": "\n\n\nneedle\n\n",
    "deep/a/b/c.ts": "Needle needle NEEDLE\n",
    "unicode.txt": "naïve needle ☃\n",
    // A NUL far past the first match: ripgrep has printed the match before it sees the NUL.
    "late.bin": `needle early\n${"z".repeat(200_000)}\n\0 needle\n`,
    // Past the built-in engine's first buffer (256 KB), which grows to take the file whole.
    "later.bin": `needle early\n${"z".repeat(300_000)}\n\0 needle\n`,
  });
  await age(wt.path, [
    "crlf.txt",
    "latin.txt",
    "long.txt",
    "bom.ts",
    "notrail.txt",
    "empty.txt",
    "blank.txt",
    "deep/a/b/c.ts",
    "unicode.txt",
  ]);
  const expected = [
    "crlf.txt:2: needle one",
    "latin.txt:1: needle \uFFFD\uFFFD",
    `long.txt:1: ...${"x".repeat(79)} needle ${"y".repeat(213)}...`,
    "bom.ts:1: needle first",
    "bom.ts:2: second needle",
    "notrail.txt:2: needle last",
    "blank.txt:4: needle",
    "deep/a/b/c.ts:1: Needle needle NEEDLE",
    "unicode.txt:1: naïve needle ☃",
  ];
  assert.equal(await grepBoth(wt, { pattern: "needle" }), expected.join("\n"));
  const patterns = [
    { pattern: "needle", context: 2 },
    { pattern: "NEEDLE", ignore_case: true },
    { pattern: "^needle" },
    { pattern: "needle$" },
    { pattern: "^$" },
    { pattern: "\\bneed\\w+" },
    { pattern: "n[a-z]+e", glob: "**/*.ts" },
    { pattern: "é|☃" },
    { pattern: "x*" },
  ];
  for (const args of patterns) await grepBoth(wt, args);
  assert.equal(
    await grepBoth(wt, { pattern: "needle", path: "late.bin" }),
    '(no matches for "needle" in late.bin)',
  );
  assert.equal(
    await grepBoth(wt, { pattern: "needle", path: "later.bin" }),
    '(no matches for "needle" in later.bin)',
  );
});

Deno.test("grep engines agree on JavaScript regex meaning where Rust's differs", async () => {
  await using wt = await tempWorktree({
    "a.txt": [
      "digits 123 and \u0663\u0664",
      "café naïve",
      "nbsp\u00a0here",
      "\ufeffbom inside",
      "cr\rinside",
      "path/to-file: ok",
      "set [a] && ~x",
      "ȧccent Ünïcode",
      "",
    ].join("\n"),
  });
  const patterns = [
    "\\d+",
    "\\w+é",
    "\\bna",
    "ïve\\b",
    "nbsp\\shere",
    "^\\s*bom",
    "cr.inside",
    "to\\-file\\:",
    "path\\/to",
    "(?<word>ok)",
    "[a[]",
    "[&~]+",
    "\\u00e9",
    "\\u{EF}",
    "\\p{Lu}\\p{Ll}+",
    "[\\d\\s]{2}",
    "\\D\\W",
  ];
  for (const pattern of patterns) await grepBoth(wt, { pattern });
  for (const pattern of ["É", "ünï", "CAFÉ"]) {
    await grepBoth(wt, { pattern, ignore_case: true });
  }
  assert.equal(await grepBoth(wt, { pattern: "\\d\\d" }), "a.txt:1: digits 123 and \u0663\u0664");
  assert.equal(await grepBoth(wt, { pattern: "to\\-file" }), "a.txt:6: path/to-file: ok");
});

Deno.test("grep engines agree past the chunk size, with context across chunk ends", async () => {
  await using wt = await tempWorktree();
  // 100-byte lines: the first 8 MB chunk ends after line 83,886.
  const count = 90_000;
  const hits = new Set([1, 83_885, 83_887, 83_888, count]);
  const lines = Array.from({ length: count }, (_, i) => {
    const tag = hits.has(i + 1) ? "HIT" : "---";
    return `${tag} ${String(i + 1).padStart(8, "0")} `.padEnd(99, ".");
  });
  await wt.write("big.txt", lines.join("\n") + "\n");
  const out = await grepBoth(wt, { pattern: "HIT", context: 2 });
  const show = (n: number) =>
    `big.txt${hits.has(n) ? ":" : "-"}${n}${hits.has(n) ? ":" : "-"} ` +
    lines[n - 1];
  assert.equal(
    out,
    [
      show(1),
      show(2),
      show(3),
      "--",
      ...[83_883, 83_884, 83_885, 83_886, 83_887, 83_888, 83_889, 83_890].map(show),
      "--",
      show(count - 2),
      show(count - 1),
      show(count),
    ].join("\n"),
  );
});

Deno.test("grep engines agree on a tree large enough for worker threads", async () => {
  await using wt = await tempWorktree();
  for (let i = 0; i < 2100; i++) {
    const body = i % 7 === 0 ? `line\nneedle ${i}\n` : "line\nother\n";
    await wt.write(`d${i % 10}/f${i}.txt`, body);
  }
  const out = await grepBoth(wt, { pattern: "needle \\d+" });
  assert.equal(out.split("\n").length, 201);
  assert.match(out.split("\n")[200]!, /^\.\.\. \(showing 200 of 300 matches in 300 files; /);
});

Deno.test("grep falls back to the built-in engine for patterns ripgrep rejects", async () => {
  await using wt = await tempWorktree({ "a.txt": "foobar\nfoobaz\n" });
  assert.equal(await grepBoth(wt, { pattern: "foo(?=bar)" }), "a.txt:1: foobar");
  assert.equal(await grepBoth(wt, { pattern: "(o)\\1" }), "a.txt:1: foobar\na.txt:2: foobaz");
});

/** Runs `replio tool grep` for "x" in a child process with `env`. */
const grepInChild = (wt: TempWorktree, env: Record<string, string>) =>
  toolInChild("grep", { pattern: "x" }, wt.path, env);

Deno.test("grep refuses an unknown REPLIO_GREP_ENGINE", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  assert.deepEqual(await grepInChild(wt, { REPLIO_GREP_ENGINE: "fast" }), {
    code: 1,
    stdout: 'Error: Cannot pick a grep engine: REPLIO_GREP_ENGINE is "fast": set it to ' +
      "builtin, rg or auto\n",
  });
});

/** Files that make a tree one too many for the small-tree path, so `auto` starts rg. */
const OVER_SMALL_TREE = Object.fromEntries(
  Array.from({ length: SMALL_TREE_FILES + 1 }, (_, i) => [`filler/f${i}.txt`, ""]),
);

Deno.test("grep says so when REPLIO_GREP_ENGINE=rg and rg is not on PATH, and falls back on auto", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n", ...OVER_SMALL_TREE });
  assert.deepEqual(await grepInChild(wt, { REPLIO_GREP_ENGINE: "rg", PATH: "/nonexistent" }), {
    code: 1,
    stdout: 'Error: Cannot search with ripgrep: "rg" is not on PATH or may not be run: install ' +
      "ripgrep, or unset REPLIO_GREP_ENGINE\n",
  });
  assert.deepEqual(await grepInChild(wt, { PATH: "/nonexistent" }), {
    code: 0,
    stdout: "a.txt:1: x\n",
  });
});

Deno.test("grep searches a small tree without starting rg; past its files or bytes rg runs", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  // Outside the tree searched: an rg that leaves a marker and reports a match that is not there.
  await using bin = await tempWorktree({ "rg": "" });
  const marker = join(bin.path, "rg-ran");
  await Deno.writeTextFile(
    join(bin.path, "rg"),
    `#!/bin/sh\ntouch '${marker}'\nprintf 'fake.txt\\0001:x\\n'\n`,
  );
  await Deno.chmod(join(bin.path, "rg"), 0o755);
  const env = { PATH: `${bin.path}:/usr/bin:/bin` };
  /** Whether the fake rg ran since the last look (the marker is taken away for the next). */
  const rgRan = async () => {
    const ran = await exists(marker);
    if (ran) await Deno.remove(marker);
    return ran;
  };
  assert.deepEqual(await grepInChild(wt, env), { code: 0, stdout: "a.txt:1: x\n" });
  assert.equal(await rgRan(), false);
  // The controls: the same call runs that rg for a tree of one file too many, or one too large.
  for (let i = 0; i < SMALL_TREE_FILES; i++) {
    await Deno.writeTextFile(join(wt.path, `f${i}.txt`), "");
  }
  assert.equal((await grepInChild(wt, env)).code, 0);
  assert.equal(await rgRan(), true, "rg ran for a tree of more files");
  for (let i = 0; i < SMALL_TREE_FILES; i++) await Deno.remove(join(wt.path, `f${i}.txt`));
  assert.deepEqual(await grepInChild(wt, env), { code: 0, stdout: "a.txt:1: x\n" });
  assert.equal(await rgRan(), false);
  await Deno.writeTextFile(join(wt.path, "big.txt"), "y".repeat(SMALL_TREE_BYTES));
  assert.equal((await grepInChild(wt, env)).code, 0);
  assert.equal(await rgRan(), true, "rg ran for a tree of more bytes");
});
