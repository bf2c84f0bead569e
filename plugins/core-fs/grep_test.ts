import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolRegistry } from "../../src/tools/mod.ts";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  type TempWorktree,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import { hasProgram } from "../../tests/support/has_program.ts";
import { exists } from "../../tests/support/exists.ts";
import { createGrep, type GrepEngine, grepSpec } from "./grep.ts";
import { SMALL_TREE_BYTES, SMALL_TREE_FILES } from "./_small_tree.ts";

const encoder = new TextEncoder();

/** Whether ripgrep can run here; the comparison tests need it. */
const hasRipgrep = await hasProgram("rg");

/** A registry holding grep with one engine (and an optional time budget). */
function grepRegistry(engine: GrepEngine, budgetMs?: number): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    grepSpec,
    createGrep(budgetMs === undefined ? { engine } : { engine, budgetMs }),
  );
  return registry;
}

const builtin = grepRegistry("builtin");
const ripgrep = grepRegistry("rg");

/** Sets each file's modification time: the first is newest. */
async function age(root: string, paths: string[]): Promise<void> {
  const now = Date.now() / 1000;
  for (const [i, path] of paths.entries()) {
    await Deno.utime(join(root, path), now - i * 60, now - i * 60);
  }
}

/** Runs grep with both engines and checks they agree; returns the shared text. */
async function grepBoth(wt: TempWorktree, args: Record<string, unknown>): Promise<string> {
  const own = await runTool(wt, "grep", args, { registry: builtin });
  if (hasRipgrep) {
    assert.equal(await runTool(wt, "grep", args, { registry: ripgrep }), own, JSON.stringify(args));
  }
  return own;
}

Deno.test("grep lists path:line: text, newest files first", async () => {
  await using wt = await tempWorktree({
    "src/a.ts": "const x = 1;\nfind(me);\n",
    "b.md": "find the way\nnothing\nfind again\n",
  });
  await age(wt.path, ["b.md", "src/a.ts"]);
  assert.equal(
    await grepBoth(wt, { pattern: "find" }),
    "b.md:1: find the way\nb.md:3: find again\nsrc/a.ts:2: find(me);",
  );
});

Deno.test("grep shows context lines and separates groups", async () => {
  const text = ["one", "two", "hit 3", "four", "five", "six", "seven", "hit 8", "nine"].join("\n");
  await using wt = await tempWorktree({ "a.txt": text + "\n", "b.txt": "hit\n" });
  await age(wt.path, ["a.txt", "b.txt"]);
  assert.equal(
    await grepBoth(wt, { pattern: "hit", context: 1 }),
    [
      "a.txt-2- two",
      "a.txt:3: hit 3",
      "a.txt-4- four",
      "--",
      "a.txt-7- seven",
      "a.txt:8: hit 8",
      "a.txt-9- nine",
      "--",
      "b.txt:1: hit",
    ].join("\n"),
  );
});

Deno.test("grep filters by glob, ignores case, and takes a file as path", async () => {
  await using wt = await tempWorktree({
    "src/a.ts": "Alpha\n",
    "src/b.py": "alpha\n",
    "docs/c.ts": "ALPHA\n",
  });
  await age(wt.path, ["src/a.ts", "src/b.py", "docs/c.ts"]);
  assert.equal(
    await grepBoth(wt, { pattern: "alpha", ignore_case: true, glob: "*.ts" }),
    "src/a.ts:1: Alpha\ndocs/c.ts:1: ALPHA",
  );
  assert.equal(await grepBoth(wt, { pattern: "alpha", glob: "src/*" }), "src/b.py:1: alpha");
  assert.equal(
    await grepBoth(wt, { pattern: "a", path: "docs/c.ts" }),
    '(no matches for "a" in docs/c.ts)',
  );
  assert.equal(
    await runTool(wt, "find", { query: "ALPHA", path: "docs/c.ts" }),
    "docs/c.ts:1: ALPHA",
  );
});

Deno.test("grep honours .gitignore and skips binary files, .git and node_modules", async () => {
  await using wt = await tempWorktree({
    ".gitignore": "build/\n*.min.js\n",
    "build/gen.ts": "needle\n",
    "app.min.js": "needle\n",
    "src/.gitignore": "secret_*\n!secret_ok.ts\n",
    "src/secret_x.ts": "needle\n",
    "src/secret_ok.ts": "needle\n",
    ".git/config": "needle\n",
    "node_modules/m/i.js": "needle\n",
    "bin.dat": encoder.encode("needle\0\x01\x02"),
    ".hidden/h.ts": "needle\n",
  });
  await age(wt.path, ["src/secret_ok.ts", ".hidden/h.ts"]);
  assert.equal(
    await grepBoth(wt, { pattern: "needle" }),
    "src/secret_ok.ts:1: needle\n.hidden/h.ts:1: needle",
  );
  // A folder named in path is searched even when .gitignore excludes it.
  assert.equal(await grepBoth(wt, { pattern: "needle", path: "build" }), "build/gen.ts:1: needle");
  // A glob picks among the files the ignore files leave: it does not bring ignored ones back,
  // as ripgrep's own --glob would (the control: rg run with it lists them).
  for (const glob of ["*.min.js", "build/*", "*.ts"]) {
    const out = await grepBoth(wt, { pattern: "needle", glob });
    assert.doesNotMatch(out, /app\.min\.js|build\/gen\.ts|secret_x/, glob);
  }
  if (hasRipgrep) {
    for (const [glob, ignored] of [["*.min.js", "app.min.js"], ["*.ts", "src/secret_x.ts"]]) {
      const { stdout } = await new Deno.Command("rg", {
        args: ["--no-config", "--hidden", "--files", "--glob", glob!],
        cwd: wt.path,
      }).output();
      assert.ok(new TextDecoder().decode(stdout).split("\n").includes(ignored!), glob);
    }
  }
});

Deno.test("grep returns a note when nothing matches", async () => {
  await using wt = await tempWorktree({ "a.txt": "abc\n" });
  const sink = new RecordingSink();
  const outcome = await invokeInWorktree(wt, "grep", { pattern: "zzz" }, { sink });
  assert.equal(outcome.output, '(no matches for "zzz")');
  const result = sink.events.find((e) => e.type === "tool_result");
  assert.equal(result?.type === "tool_result" && result.is_note, true);
});

Deno.test("grep explains an invalid regular expression", async () => {
  await using wt = await tempWorktree({ "a.txt": "f(x)\n" });
  assert.equal(
    await runTool(wt, "grep", { pattern: "f(x" }),
    'Error: Cannot search for "f(x": it is not a valid regular expression (Unterminated ' +
      "group): escape ( ) [ ] { } . * + ? | \\ with a backslash to match them literally, or " +
      "fix the syntax",
  );
  assert.equal(await runTool(wt, "grep", { pattern: "f\\(x" }), "a.txt:1: f(x)");
});

Deno.test("grep caps the matches and says how many were left out", async () => {
  const text = Array.from({ length: 300 }, (_, i) => `match ${i + 1}`).join("\n") + "\n";
  await using wt = await tempWorktree({ "a.txt": text });
  const lines = (await grepBoth(wt, { pattern: "match" })).split("\n");
  assert.equal(lines.length, 201);
  assert.equal(lines[199], "a.txt:200: match 200");
  assert.equal(
    lines[200],
    "... (showing 200 of 300 matches in 1 file; 100 left out: narrow the pattern, the path " +
      "or the glob)",
  );
});

Deno.test("grep returns partial results with a note when its time budget runs out", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  assert.equal(
    await runTool(wt, "grep", { pattern: "x" }, { registry: grepRegistry("builtin", 0) }),
    '(no matches for "x" in the part searched: stopped after 0 ms: 0 of the 0 files ' +
      "listed so far searched, 1 folder not yet listed; narrow with path= or glob=)",
  );
});

/** A tree of `dirs` folders with `perDir` files, each holding two matching lines. */
async function largeTree(dirs: number, perDir: number): Promise<TempWorktree> {
  const wt = await tempWorktree({});
  for (let d = 0; d < dirs; d++) {
    await Deno.mkdir(join(wt.path, `d${d}`));
    for (let f = 0; f < perDir; f++) {
      await Deno.writeTextFile(join(wt.path, `d${d}`, `f${f}.txt`), "hit one\nmiss\nhit two\n");
    }
  }
  return wt;
}

Deno.test("grep over a large tree stops at its result budget with an exact note", async () => {
  await using wt = await largeTree(30, 100);
  const registry = new ToolRegistry();
  registry.register(grepSpec, createGrep({ engine: "builtin", maxResults: 50 }));
  const out = await runTool(wt, "grep", { pattern: "hit" }, { registry });
  const lines = out.split("\n");
  const note = lines.at(-1)!;
  const found = note.match(
    /^\(partial results: stopped at 50 matching lines \(search\.max_results\): ([\d,]+) of 3,000 files searched; narrow with path= or glob=\)$/,
  );
  assert.ok(found, note);
  const searched = Number(found[1]!.replaceAll(",", ""));
  assert.ok(searched >= 25 && searched < 3000, note);
  // Exactly the budget is returned, although more files may have been searched meanwhile.
  const shown = lines.filter((l) => /^d\d+\/f\d+\.txt:\d+: hit/.test(l));
  assert.equal(shown.length, 50);
});

Deno.test("grep's time budget stops the walk of a large tree with what it left unread", async () => {
  await using wt = await largeTree(30, 10);
  const registry = new ToolRegistry();
  registry.register(grepSpec, createGrep({ engine: "builtin" }));
  const out = await runTool(wt, "grep", { pattern: "hit" }, {
    registry,
    config: { "search.time_budget": 0.000001 },
  });
  assert.equal(
    out,
    '(no matches for "hit" in the part searched: stopped after 0 ms: 0 of the 0 files ' +
      "listed so far searched, 1 folder not yet listed; narrow with path= or glob=)",
  );
});

Deno.test("grep stopped by a tiny time budget mid-search: its note agrees with its results", async () => {
  await using wt = await largeTree(30, 100);
  const registry = new ToolRegistry();
  registry.register(grepSpec, createGrep({ engine: "builtin", budgetMs: 30, maxResults: 0 }));
  const out = await runTool(wt, "grep", { pattern: "hit one" }, { registry });
  const lines = out.split("\n");
  const note = lines.at(-1)!;
  // Where the 30 ms run out depends on the machine: the note must be exact wherever it is.
  const stopped = note.match(
    /^\(partial results: stopped after 30 ms: ([\d,]+) of (?:the )?([\d,]+) files? (?:listed so far )?searched(?:, ([\d,]+) folders? not yet listed)?; narrow with path= or glob=\)$/,
  );
  if (stopped === null) {
    assert.doesNotMatch(out, /partial results/);
    return;
  }
  const searched = Number(stopped[1]!.replaceAll(",", ""));
  const listed = Number(stopped[2]!.replaceAll(",", ""));
  assert.ok(searched <= listed && listed <= 3000, note);
  if (stopped[3] === undefined) assert.equal(listed, 3000, "no folder unread: all listed");
  // Every searched file holds one "hit one": the matches shown are exactly the files searched.
  const matches = lines.filter((l) => l.endsWith(": hit one")).length;
  const counted = out.match(/of (\d+) matches/)?.[1];
  assert.equal(counted === undefined ? matches : Number(counted), searched);
});

Deno.test({
  name: "grep with ripgrep stopped by its time budget counts the files there were to search",
  ignore: !hasRipgrep,
  fn: async () => {
    await using wt = await largeTree(30, 100);
    const registry = new ToolRegistry();
    registry.register(grepSpec, createGrep({ engine: "rg", budgetMs: 40, maxResults: 0 }));
    const out = await runTool(wt, "grep", { pattern: "hit one" }, { registry });
    const note = out.split("\n").at(-1)!;
    // Whether ripgrep finishes within 40 ms depends on the machine; what a stop says must hold.
    const stopped = note.match(
      /^\(partial results: stopped after 40 ms: ripgrep was stopped mid-search with ([\d,]+) files? matched so far(?:, of (at least )?([\d,]+) files? to search)?; how many files it had read is not known; narrow with path= or glob=\)$/,
    );
    if (stopped === null) {
      assert.doesNotMatch(out, /partial results/);
      return;
    }
    if (stopped[3] !== undefined) {
      const total = Number(stopped[3].replaceAll(",", ""));
      if (stopped[2] === undefined) assert.equal(total, 3000, note);
      else assert.ok(total <= 3000, note);
    }
  },
});

Deno.test({
  name: "grep with ripgrep says exactly what it knows when stopped at its result budget",
  ignore: !hasRipgrep,
  fn: async () => {
    await using wt = await largeTree(30, 100);
    const registry = new ToolRegistry();
    registry.register(grepSpec, createGrep({ engine: "rg", maxResults: 50 }));
    const out = await runTool(wt, "grep", { pattern: "hit" }, { registry });
    const note = out.split("\n").at(-1)!;
    const found = note.match(
      /^\(partial results: stopped at 50 matching lines \(search\.max_results\): ripgrep was stopped mid-search with ([\d,]+) files? matched so far; how many files it had read is not known; narrow with path= or glob=\)$/,
    );
    assert.ok(found, note);
    const files = new Set(
      out.split("\n").filter((l) => l.includes(": hit")).map((l) => l.split(":")[0]),
    );
    assert.equal(files.size, Number(found[1]!.replaceAll(",", "")));
    // What ripgrep printed past the budget is not taken: exactly 50 matches, 2 per file.
    assert.equal(out.split("\n").filter((l) => l.includes(": hit")).length, 50);
    assert.equal(files.size, 25);
  },
});

Deno.test("grep does not follow symlinks, and asks before searching one that leads outside", async () => {
  await using outside = await tempWorktree({ "secret.txt": "needle\n" });
  await using wt = await tempWorktree({ "a.txt": "needle\n" });
  await Deno.symlink(outside.path, join(wt.path, "out"));
  await Deno.symlink(join(outside.path, "secret.txt"), join(wt.path, "s.txt"));
  assert.equal(await grepBoth(wt, { pattern: "needle" }), "a.txt:1: needle");
  assert.equal(
    await runTool(wt, "grep", { pattern: "needle", path: "out" }, { headless: "no" }),
    "Error: grep needs confirmation (outside worktree) and this headless run cannot ask: " +
      "it was denied; continue without it (the operator can rerun with --yes)",
  );
  assert.equal(
    await runTool(wt, "grep", { pattern: "needle", path: "out" }, { headless: "yes" }),
    `${join(outside.path, "secret.txt")}:1: needle`,
  );
});

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

/** Runs `replio tool grep` in a child process with `env`; returns its exit code and stdout. */
async function grepInChild(
  wt: TempWorktree,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string }> {
  const main = new URL("../../main.ts", import.meta.url).pathname;
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-prompt", main, "tool", "grep", '{"pattern":"x"}', "--path", wt.path],
    env: { NO_COLOR: "1", ...env },
    stderr: "null",
  }).output();
  return { code, stdout: new TextDecoder().decode(stdout) };
}

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
