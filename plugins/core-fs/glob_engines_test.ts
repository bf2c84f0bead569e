import assert from "node:assert/strict";
import { join } from "node:path";
import { ToolRegistry } from "../../src/tools/mod.ts";
import { runTool, type TempWorktree, tempWorktree } from "../../tests/support/worktree.ts";
import { age } from "../../tests/support/file_ages.ts";
import { hasProgram } from "../../tests/support/has_program.ts";
import { exists } from "../../tests/support/exists.ts";
import { toolInChild } from "../../tests/support/tool_in_child.ts";
import { nameGlobs } from "./_name_globs.ts";
import { createGlob, type GlobEngine, type GlobOptions, globSpec } from "./glob.ts";
import { SMALL_TREE_FILES } from "./_small_tree.ts";

/** Whether ripgrep can run here; the comparisons need it. */
const hasRipgrep = await hasProgram("rg");

/** A registry holding glob with one engine and the given budgets. */
function globRegistry(engine: GlobEngine, options: GlobOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(globSpec, createGlob({ ...options, engine }));
  return registry;
}

const builtin = globRegistry("builtin");
const ripgrep = globRegistry("rg");

/** Runs glob with both engines and checks they agree; returns the shared text. */
async function globBoth(wt: TempWorktree, args: Record<string, unknown>): Promise<string> {
  const own = await runTool(wt, "glob", args, { registry: builtin });
  assert.equal(await runTool(wt, "glob", args, { registry: ripgrep }), own, JSON.stringify(args));
  return own;
}

/** Files of the tree below, newest first; ignored and skipped ones are never listed. */
const LISTED = [
  "keep.js",
  "xkeep.js",
  "lib/main.js",
  "lib/deep/main.js",
  "lib/a.ts",
  ".config/tool.js",
  ".hidden.ts",
  "src/a.ts",
  "src/b/c.ts",
  "src/b/d.tsx",
  "docs/[x].md",
];

/**
 * A tree with every rule the engines must agree on: a root and a nested `.gitignore` (one
 * re-including a file), hidden files, the skipped folders, symlinks to a folder and a file, and
 * files that ripgrep's `--glob` would list against `.gitignore` (`app.log`, `build/build_x.js`).
 */
async function ruleTree(): Promise<TempWorktree> {
  const wt = await tempWorktree({
    ".gitignore": "build/\n*.log\n",
    "app.log": "",
    "sub/a.log": "",
    "build/build_x.js": "",
    "lib/.gitignore": "*.js\n!main.js\n",
    "lib/helper.js": "",
    ".git/hooks/pre.js": "",
    "node_modules/x/index.js": "",
    "src/node_modules/y.ts": "",
    ...Object.fromEntries(LISTED.map((path) => [path, ""])),
  });
  await Deno.symlink(join(wt.path, "src"), join(wt.path, "linked"));
  await Deno.symlink(join(wt.path, "keep.js"), join(wt.path, "link.js"));
  await age(wt.path, [...LISTED, "lib/.gitignore", ".gitignore"]);
  return wt;
}

Deno.test({
  name: "glob engines give the same answer on a tree with ignore files, hidden files and links",
  ignore: !hasRipgrep,
  fn: async () => {
    await using wt = await ruleTree();
    const cases: [Record<string, unknown>, string[]][] = [
      // Unanchored: the name at any depth; hidden files count, links and ignored files do not.
      [{ pattern: "*.js" }, [
        "keep.js",
        "xkeep.js",
        "lib/main.js",
        "lib/deep/main.js",
        ".config/tool.js",
      ]],
      [{ pattern: "*.log" }, []],
      [{ pattern: "build*" }, []],
      [{ pattern: "*.{ts,tsx}" }, [
        "lib/a.ts",
        ".hidden.ts",
        "src/a.ts",
        "src/b/c.ts",
        "src/b/d.tsx",
      ]],
      [{ pattern: "[kx]*.js" }, ["keep.js", "xkeep.js"]],
      // "?" is narrowed to "*" for ripgrep: "xkeep.js" reaches the match, which turns it away.
      [{ pattern: "?eep.js" }, ["keep.js"]],
      [{ pattern: "main.js" }, ["lib/main.js", "lib/deep/main.js"]],
      // Anchored: from the folder searched.
      [{ pattern: "lib/*.js" }, ["lib/main.js"]],
      [{ pattern: "lib/**" }, ["lib/main.js", "lib/deep/main.js", "lib/a.ts", "lib/.gitignore"]],
      [{ pattern: "./keep.js" }, ["keep.js"]],
      [{ pattern: "./*.js" }, ["keep.js", "xkeep.js"]],
      [{ pattern: join(wt.path, "lib", "*.js") }, ["lib/main.js"]],
      [{ pattern: "src/{a,b/c}.ts" }, ["src/a.ts", "src/b/c.ts"]],
      [{ pattern: "**/b/*" }, ["src/b/c.ts", "src/b/d.tsx"]],
      [{ pattern: "*.js", path: "lib" }, ["lib/main.js", "lib/deep/main.js"]],
      // What ripgrep's globs read otherwise: an extglob, a negation, an escaped bracket.
      [{ pattern: "*.@(ts|md)" }, [
        "lib/a.ts",
        ".hidden.ts",
        "src/a.ts",
        "src/b/c.ts",
        "docs/[x].md",
      ]],
      [{ pattern: "!*.{js,ts}" }, ["src/b/d.tsx", "docs/[x].md", "lib/.gitignore", ".gitignore"]],
      [{ pattern: "\\[x\\].md" }, ["docs/[x].md"]],
    ];
    for (const [args, expected] of cases) {
      const where = args.path === undefined ? "" : ` in ${args.path}`;
      assert.equal(
        await globBoth(wt, args),
        expected.length ? expected.join("\n") : `(no files match "${args.pattern}"${where})`,
        JSON.stringify(args),
      );
    }
  },
});

Deno.test({
  name: "glob's ripgrep engine keeps .gitignore where ripgrep's own --glob would override it",
  ignore: !hasRipgrep,
  fn: async () => {
    await using wt = await ruleTree();
    // The control: ripgrep's --glob lists the ignored files, so the engine must not use it.
    const { stdout } = await new Deno.Command("rg", {
      args: ["--files", "--no-config", "--hidden", "--no-require-git", "--glob", "*.log"],
      cwd: wt.path,
      stdout: "piped",
    }).output();
    assert.deepEqual(new TextDecoder().decode(stdout).trim().split("\n").sort(), [
      "app.log",
      "sub/a.log",
    ]);
    assert.equal(
      await runTool(wt, "glob", { pattern: "*.log" }, { registry: ripgrep }),
      '(no files match "*.log")',
    );
  },
});

Deno.test("nameGlobs narrows to names the pattern could match, or not at all", () => {
  assert.deepEqual(nameGlobs("*_spec.rb"), ["*_spec.rb"]);
  assert.deepEqual(nameGlobs("src/**/*.{ts,tsx}"), ["*.ts", "*.tsx"]);
  assert.deepEqual(nameGlobs("./a/[!x]?b*.c"), ["*b*.c"]);
  assert.deepEqual(nameGlobs("{a,b}{c,d}.e"), ["ac.e", "ad.e", "bc.e", "bd.e"]);
  for (
    const pattern of [
      "src/**", // every name
      "*", // every name
      "src/", // no name
      "!*.ts", // a negation
      "*.@(js|ts)", // an extglob
      "{a,{b,c}}.ts", // nested braces
      "{a}.ts", // braces without a choice
      "src/{a,b/c}.ts", // a brace holding a "/"
      "[[:alpha:]].ts", // a POSIX class
      "a\\*.ts", // an escape
      "a,b.ts", // a comma, which --type-add splits on
      "a:b.ts", // a colon, which --type-add splits on
      "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}.ts", // too many names
    ]
  ) {
    assert.equal(nameGlobs(pattern), null, pattern);
  }
});

/** Runs `replio tool glob` for "*.ts" in a child process with `env`. */
const globInChild = (wt: TempWorktree, env: Record<string, string>) =>
  toolInChild("glob", { pattern: "*.ts" }, wt.path, env);

/** Files that make a tree one too many for the small-tree path, so `auto` starts rg. */
const OVER_SMALL_TREE = Object.fromEntries(
  Array.from({ length: SMALL_TREE_FILES + 1 }, (_, i) => [`filler/f${i}.txt`, ""]),
);

Deno.test("glob walks the tree itself when rg is not on PATH, or exits 2 without output", async () => {
  await using wt = await tempWorktree({ "a.ts": "", "b.ts": "", "bin/rg": "", ...OVER_SMALL_TREE });
  await age(wt.path, ["a.ts", "b.ts"]);
  const fake = (script: string) => Deno.writeTextFile(join(wt.path, "bin/rg"), script);
  await Deno.chmod(join(wt.path, "bin/rg"), 0o755);
  assert.deepEqual(await globInChild(wt, { PATH: "/nonexistent" }), {
    code: 0,
    stdout: "a.ts\nb.ts\n",
  });
  // The control: the rg on PATH is the one glob runs, and its list is the answer.
  await fake("#!/bin/sh\nprintf './b.ts\\0'\n");
  assert.deepEqual(await globInChild(wt, { PATH: join(wt.path, "bin") }), {
    code: 0,
    stdout: "b.ts\n",
  });
  // An rg that refuses its flags (as an old one would) leaves the search to the walk.
  await fake("#!/bin/sh\necho 'rg: unrecognized flag --no-require-git' >&2\nexit 2\n");
  assert.deepEqual(await globInChild(wt, { PATH: join(wt.path, "bin") }), {
    code: 0,
    stdout: "a.ts\nb.ts\n",
  });
});

Deno.test("glob answers for a small tree without starting rg; one file more and rg runs", async () => {
  await using wt = await tempWorktree({ "a.ts": "", "b.ts": "", "bin/rg": "" });
  await age(wt.path, ["a.ts", "b.ts"]);
  // An rg that leaves a marker and lists b.ts only: its answer would show it was run.
  const marker = join(wt.path, "rg-ran");
  await Deno.writeTextFile(
    join(wt.path, "bin/rg"),
    `#!/bin/sh\ntouch '${marker}'\nprintf './b.ts\\0'\n`,
  );
  await Deno.chmod(join(wt.path, "bin/rg"), 0o755);
  const env = { PATH: `${join(wt.path, "bin")}:/usr/bin:/bin` };
  // bin/rg itself is a file of the tree: with the others, SMALL_TREE_FILES - 3 fillers fit.
  const fillers = (n: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) => Deno.writeTextFile(join(wt.path, `f${i}.txt`), "")),
    );
  await fillers(SMALL_TREE_FILES - 3);
  assert.deepEqual(await globInChild(wt, env), { code: 0, stdout: "a.ts\nb.ts\n" });
  assert.equal(await exists(marker), false, "rg ran for the small tree");
  // The control: one file more, and the same call runs that rg and answers with its list.
  await fillers(SMALL_TREE_FILES - 2);
  assert.deepEqual(await globInChild(wt, env), { code: 0, stdout: "b.ts\n" });
  assert.equal(await exists(marker), true, "rg did not run for the larger tree");
});

Deno.test({
  name: "glob walks the tree itself when Deno may not run rg, and says so when rg was asked for",
  permissions: { read: true, write: true, env: true, run: false },
  fn: async () => {
    await using wt = await tempWorktree({ "a.ts": "", "b.ts": "" });
    await age(wt.path, ["a.ts", "b.ts"]);
    assert.equal(await runTool(wt, "glob", { pattern: "*.ts" }), "a.ts\nb.ts");
    assert.equal(
      await runTool(wt, "glob", { pattern: "*.ts" }, { registry: ripgrep }),
      'Error: Cannot glob with ripgrep: "rg" is not on PATH or may not be run: install ' +
        'ripgrep, or use the engine "auto" or "builtin"',
    );
  },
});

Deno.test({
  name: "glob's ripgrep engine stops at its result budget, exactly, and says what it knows",
  ignore: !hasRipgrep,
  fn: async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 5; d++) for (let f = 0; f < 10; f++) files[`d${d}/f${f}.ts`] = "";
    await using wt = await tempWorktree(files);
    const registry = globRegistry("rg", { maxResults: 10 });
    const lines = (await runTool(wt, "glob", { pattern: "*.ts" }, { registry })).split("\n");
    assert.equal(lines.length, 11);
    assert.ok(lines.slice(0, 10).every((line) => /^d\d\/f\d\.ts$/.test(line)), lines.join("\n"));
    assert.equal(
      lines.at(-1),
      "(partial results: stopped at 10 matching files (search.max_results): ripgrep was " +
        "stopped mid-search with 10 matching files so far; how many files it had looked at " +
        "is not known; narrow with path=)",
    );
  },
});

Deno.test({
  name: "glob's ripgrep engine with no time left says so without starting rg",
  ignore: !hasRipgrep,
  fn: async () => {
    await using wt = await tempWorktree({ "a.ts": "" });
    const registry = globRegistry("rg", { budgetMs: 0 });
    assert.equal(
      await runTool(wt, "glob", { pattern: "*.ts" }, { registry }),
      '(no files match "*.ts" in the part searched: stopped after 0 ms: ripgrep was stopped ' +
        "mid-search with 0 matching files so far; how many files it had looked at is not " +
        "known; narrow with path=)",
    );
  },
});

Deno.test({
  name: "glob's ripgrep engine stopped by a tiny time budget: its note agrees with its results",
  ignore: !hasRipgrep,
  fn: async () => {
    await using wt = await tempWorktree();
    for (let d = 0; d < 10; d++) {
      await Deno.mkdir(join(wt.path, `d${d}`));
      for (let f = 0; f < 100; f++) await Deno.writeTextFile(join(wt.path, `d${d}/f${f}.txt`), "");
    }
    const registry = globRegistry("rg", { budgetMs: 5, maxResults: 0 });
    const out = await runTool(wt, "glob", { pattern: "*.txt" }, { registry });
    const note = out.split("\n").at(-1)!;
    // Where 5 ms run out depends on the machine: what a stop says must hold wherever it is.
    const stopped = note.match(
      /^\(partial results: stopped after 5 ms: ripgrep was stopped mid-search with ([\d,]+) matching files? so far; how many files it had looked at is not known; narrow with path=\)$/,
    ) ?? note.match(
      /^\(no files match "\*\.txt" in the part searched: stopped after 5 ms: ripgrep was stopped mid-search with (0) matching files so far; how many files it had looked at is not known; narrow with path=\)$/,
    );
    if (stopped === null) {
      assert.doesNotMatch(out, /partial results|part searched/);
      assert.match(note, /^\.\.\. \(showing 200 of 1000 files, /);
      return;
    }
    const found = Number(stopped[1]!.replaceAll(",", ""));
    const counted = out.match(/of (\d+) files, most recently/)?.[1];
    const shown = out.split("\n").filter((line) => /^d\d+\/f\d+\.txt$/.test(line)).length;
    assert.equal(counted === undefined ? shown : Number(counted), found, note);
    assert.ok(found < 1000, note);
  },
});
