import assert from "node:assert/strict";
import { describeCommandRule, proposeRule, ruleCovers } from "./always_rule.ts";

Deno.test("proposeRule offers a prefix only for programs whose further words cannot run or write", () => {
  const offered = Object.fromEntries(
    [
      "ls -la src",
      "cat README.md",
      "grep -rn TODO src",
      "git status --short",
      "git log -n 3 --oneline",
      "git diff HEAD~1 -- src",
      "find . -name x",
      "sort -r names.txt",
      "rg -n foo src",
      // Each of these runs code its arguments name, or writes, or deletes: only itself.
      "find . -name x -delete",
      "find . -exec rm {} +",
      "git -c core.pager=cat log",
      "git -C .. status",
      "git push origin main",
      "git diff --output=out.txt",
      "sort -o out.txt names.txt",
      "rg --pre=./x foo",
      "bash scripts/check.sh",
      "sh -c true",
      "xargs rm",
      "env FOO=1 ls",
      "npx prettier --write .",
      "npm test -- --watch",
      "npm run build",
      "make test",
      "python3 x.py",
      "node x.js",
      "deno task test",
      "perl -e 1",
      "awk 1 a.txt",
      "sed -n 1p a.txt",
      "tar -xf a.tar",
      "rsync -a a/ b/",
      "rm -rf build",
      "./ls -a",
      "LC_ALL=C ls",
      "cat 'my file.txt'",
      "ls && rm x",
      "   ",
      "ls\nrm x",
    ].map((command) => [command, proposeRule(command)]),
  );
  assert.deepEqual(offered, {
    "ls -la src": "ls",
    "cat README.md": "cat",
    "grep -rn TODO src": "grep",
    "git status --short": "git status",
    "git log -n 3 --oneline": "git log",
    "git diff HEAD~1 -- src": "git diff HEAD~1 -- src",
    "find . -name x": "find",
    "sort -r names.txt": "sort",
    "rg -n foo src": "rg",
    "find . -name x -delete": "find . -name x -delete",
    "find . -exec rm {} +": "find . -exec rm {} +",
    "git -c core.pager=cat log": "git -c core.pager=cat log",
    "git -C .. status": "git -C .. status",
    "git push origin main": "git push origin main",
    "git diff --output=out.txt": "git diff --output=out.txt",
    "sort -o out.txt names.txt": "sort -o out.txt names.txt",
    "rg --pre=./x foo": "rg --pre=./x foo",
    "bash scripts/check.sh": "bash scripts/check.sh",
    "sh -c true": "sh -c true",
    "xargs rm": "xargs rm",
    "env FOO=1 ls": "env FOO=1 ls",
    "npx prettier --write .": "npx prettier --write .",
    "npm test -- --watch": "npm test -- --watch",
    "npm run build": "npm run build",
    "make test": "make test",
    "python3 x.py": "python3 x.py",
    "node x.js": "node x.js",
    "deno task test": "deno task test",
    "perl -e 1": "perl -e 1",
    "awk 1 a.txt": "awk 1 a.txt",
    "sed -n 1p a.txt": "sed -n 1p a.txt",
    "tar -xf a.tar": "tar -xf a.tar",
    "rsync -a a/ b/": "rsync -a a/ b/",
    "rm -rf build": "rm -rf build",
    "./ls -a": "./ls -a",
    "LC_ALL=C ls": "LC_ALL=C ls",
    "cat 'my file.txt'": "cat 'my file.txt'",
    "ls && rm x": "ls && rm x",
    "   ": null,
    "ls\nrm x": null,
  });
});

/** Rules, some as an older replio recorded them (`find`, `bash`, `git`), and what they cover. */
const COVERAGE: Readonly<Record<string, { covers: string[]; refuses: string[] }>> = {
  find: {
    covers: ["find . -name x", "find src -type f -name '*.ts' -print0", "find"],
    refuses: [
      "find . -delete",
      "find . -name x -delete",
      "find . -exec rm {} +",
      "find . -execdir touch M ';'",
      "find . -ok rm {} ';'",
      "find . -okdir rm {} ';'",
      "find . -fprint out",
      "find . -fprint0 out",
      "find . -fprintf out %p",
      "find . -fls out",
      "find . '-delete'",
      'find . "-del"ete',
      "find . \\-delete",
      "find . $X",
      "find . -name *.ts",
      "find . -name x | xargs rm",
      "find . -name x; rm y",
      "/usr/bin/find . -delete",
    ],
  },
  bash: {
    covers: ["bash"],
    refuses: ["bash evil.sh", "bash -c 'touch M'", "bash scripts/check.sh"],
  },
  "bash scripts/check.sh": {
    covers: ["bash scripts/check.sh", "  bash scripts/check.sh "],
    refuses: ["bash evil.sh", "bash scripts/check.sh --fix", "bash scripts/check.sh; touch M"],
  },
  git: {
    covers: ["git status", "git diff --stat", "git log -n 1", "git grep -n foo"],
    refuses: [
      "git -c core.pager=sh log",
      "git -C .. status",
      "git push",
      "git config alias.x '!sh'",
      "git diff --output=x",
      "git diff --out=x",
      "git log --output x",
      "git grep -O foo",
      "git grep -nOvim foo",
      "git grep --open=vim foo",
      "git status $X",
    ],
  },
  "git status": {
    covers: ["git status -s", "git status --porcelain=v1"],
    refuses: ["git status; git push", "git stash", "git -c x=y status"],
  },
  sort: {
    covers: ["sort a.txt", "sort -r -n a.txt", "sort --reverse a.txt"],
    refuses: [
      "sort -o out a.txt",
      "sort -ro out a.txt",
      "sort --out=x a.txt",
      "sort --output x a.txt",
      "sort --compress-program=sh a.txt",
      "sort -T dir a.txt",
    ],
  },
  rg: {
    covers: ["rg foo src", "rg --pretty foo", "rg --pre-glob '*.gz' foo"],
    refuses: ["rg --pre=sh foo", "rg --pre sh foo", "rg --hostname-bin=x foo"],
  },
  ls: {
    covers: ["ls -la src", "ls $HOME", "ls *.ts"],
    refuses: ["ls > out", "ls; rm x", "./ls", "ls $(touch M)", "lsblk"],
  },
  ...Object.fromEntries(
    [
      "xargs",
      "env",
      "sh",
      "npx",
      "npm",
      "npm test",
      "make",
      "python",
      "node",
      "deno",
      "perl",
      "awk",
      "sed",
      "tar",
      "rsync",
      "rm",
      "cp",
      "tee",
      "curl",
      "time",
      "command",
      "exec",
      "nice",
      "timeout",
      "sudo",
    ].map((program) => [program, { covers: [program], refuses: [`${program} touch M`] }]),
  ),
};

for (const [rule, { covers, refuses }] of Object.entries(COVERAGE)) {
  Deno.test(`ruleCovers decides what the rule "${rule}" covers`, async () => {
    const decided = async (commands: string[]) =>
      Object.fromEntries(
        await Promise.all(commands.map(async (c) => [c, await ruleCovers(c, rule)] as const)),
      );
    assert.deepEqual(
      await decided([...covers, ...refuses]),
      Object.fromEntries([...covers.map((c) => [c, true]), ...refuses.map((c) => [c, false])]),
    );
  });
}

Deno.test("ruleCovers never covers a line break or control character, even the same text", async () => {
  assert.equal(await ruleCovers("ls\nrm x", "ls\nrm x"), false);
  assert.equal(await ruleCovers("ls\x1b[2K", "ls\x1b[2K"), false);
  assert.equal(await ruleCovers("ls", " "), false);
});

Deno.test("describeCommandRule says what ruleCovers decides", () => {
  assert.deepEqual(
    ["ls", "git status", "git diff", "git", "find", "find . -delete", "bash x.sh", "npm test"]
      .map(describeCommandRule),
    [
      'commands starting with "ls"',
      'commands starting with "git status", except with a computed word',
      'commands starting with "git diff", except with --output or a computed word',
      'commands starting with "git", except with subcommands other than status, blame, ls-files, ' +
      "ls-tree, rev-parse, describe, merge-base, diff, log, show, shortlog, rev-list, grep",
      'commands starting with "find", except with -delete, -exec, -execdir, -ok, -okdir, -fls, ' +
      "-fprint, -fprint0, -fprintf or a computed word",
      'exactly "find . -delete"',
      'exactly "bash x.sh"',
      'exactly "npm test"',
    ],
  );
});
