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
import { age } from "../../tests/support/file_ages.ts";
import { grepBoth, grepRegistry, hasRipgrep } from "../../tests/support/grep_engines.ts";
import { createGrep, grepSpec } from "./grep.ts";

const encoder = new TextEncoder();

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
