/**
 * Escapes from `tool_permission.bash_allow` under `tool_permission.bash: allow`, the setting
 * where the list is the only thing between the model and the shell. Each escape is shown real
 * first: run by bash itself in a prepared worktree it creates the marker file. Then the same
 * command goes through the real policy (in process for every escape, and as a `replio tool`
 * child process with a global config for the reported findings): it is denied and the marker
 * never appears. The corpus in plugins/core-exec/bash_allow_test.ts covers substitutions,
 * redirections, chains and wrappers; these are the variable, builtin and naming tricks.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { checkBashAllow } from "../../plugins/core-exec/bash_allow.ts";
import type { PermissionRecord } from "../../src/tools/mod.ts";
import { runReplio } from "../support/replio_process.ts";
import { invokeInWorktree, type TempWorktree, tempWorktree } from "../support/worktree.ts";
import { seededRandom } from "../support/seeded_random.ts";

/** The file every escape tries to create. */
const MARKER = "pwned";

/**
 * What the escapes plant, as a prompt-injected model could with file_write: a fake `ls` in
 * bin/ and b/, git configs whose fsmonitor hook runs on `git status`, and a file named `-v`.
 */
const PLANTED = {
  "bin/ls": `#!/bin/sh\necho > ${MARKER}\n`,
  "b/ls": `#!/bin/sh\necho > ${MARKER}\n`,
  ".gitconfig": `[core]\n\tfsmonitor = "echo > ${MARKER}; false"\n`,
  "g": `[core]\n\tfsmonitor = "echo > ${MARKER}; false"\n`,
  "x/git/config": `[core]\n\tfsmonitor = "echo > ${MARKER}; false"\n`,
  "a.txt": "hello\n",
  // A file named like an option: a glob such as `-?` turns into `-v`.
  "-v": "",
};

/**
 * Prefixes a user might well allow, builtins included: most escapes below start each of their
 * commands with one of them, so a check that looked only at command names would pass them.
 * Wrappers that run any program (env, exec, nohup, eval, `.`) are left out: naming one trusts
 * everything it runs (docs/permissions.md).
 */
const LIST = [
  "ls",
  "echo",
  "cat",
  "git status",
  "printf",
  "test",
  "[",
  "read",
  "true",
  "wait",
  "compgen",
  "getopts",
  "hash",
  "set",
  "trap",
  "unset",
  "let",
  "export",
  "declare",
  "typeset",
  "readonly",
  ":",
  "command",
  "builtin",
  "mapfile",
  "readarray",
  "local",
];

const CONFIG = { "tool_permission.bash": "allow", "tool_permission.bash_allow": LIST };

/** The escapes reported against bash_allow (issue 11, item 4). */
const FINDINGS: readonly string[] = [
  `ls; touch ${MARKER}`,
  "for PATH in bin; do ls; done",
  "for HOME in .; do git status; done",
  `printf -v 'a[$(touch ${MARKER})]' x`,
  `test -v 'a[$(touch ${MARKER})]'`,
  `[ -v 'a[$(touch ${MARKER})]' ]`,
  "printf -v PATH bin; ls",
];

/** Further escapes, each a different way to assign, evaluate or rename. */
const ESCAPES: readonly string[] = [
  // Variable-taking builtins evaluate a subscript in the name.
  `read 'a[$(touch ${MARKER})]' <<< x`,
  `"read" 'a[$(touch ${MARKER})]' <<< x`,
  `ls | read 'a[$(touch ${MARKER})]'`,
  `true & wait -p 'PIPESTATUS[$(touch ${MARKER})]' $!`,
  `unset 'BASH_ALIASES[$(touch ${MARKER})]'`,
  `declare -n r='a[$(touch ${MARKER})]'; echo $r`,
  `let 'a[$(touch ${MARKER})]=1'`,
  `compgen -W '$(touch ${MARKER})' x`,
  // printf -v and test -v in every spelling.
  "printf -vPATH bin; ls",
  `'printf' -v 'a[$(touch ${MARKER})]' x`,
  `p\\rintf -v 'a[$(touch ${MARKER})]' x`,
  `command printf -v 'a[$(touch ${MARKER})]' x`,
  `builtin printf -v 'a[$(touch ${MARKER})]' x`,
  `time printf -v 'a[$(touch ${MARKER})]' x`,
  `command -p printf -v 'a[$(touch ${MARKER})]' x`,
  `echo printf; command $_ -v 'a[$(touch ${MARKER})]' x`,
  `echo read; builtin $_ 'a[$(touch ${MARKER})]' <<< x`,
  `! test -v 'a[$(touch ${MARKER})]'`,
  `if [ -v 'a[$(touch ${MARKER})]' ]; then ls; fi`,
  `echo '-v a[$(touch\${IFS}${MARKER})]'; test $_`,
  `set -- -v 'a[$(touch ${MARKER})]'; test "$@"`,
  `[[ -v a[$(touch ${MARKER})] ]]`,
  // Options that only quote removal, brace expansion or a glob reveal.
  `test \\-v 'a[$(touch ${MARKER})]'`,
  `printf \\-v 'a[$(touch ${MARKER})]' x`,
  `\\read 'a[$(touch ${MARKER})]' <<< x`,
  `command \\printf -v 'a[$(touch ${MARKER})]' x`,
  `test {-v,'a[$(touch ${MARKER})]'}`,
  `printf {-v,'a[$(touch ${MARKER})]'} x`,
  `command {printf,-v,'a[$(touch ${MARKER})]',x}`,
  `test -? 'a[$(touch ${MARKER})]'`,
  `[ -[v] 'a[$(touch ${MARKER})]' ]`,
  `printf -? 'a[$(touch ${MARKER})]' x`,
  `[[ 'a[$(touch ${MARKER})]' -eq 0 ]]`,
  // Assigning PATH or HOME so an allowed command runs planted code.
  "read PATH <<< bin; ls",
  "while read PATH; do ls; break; done <<< bin",
  "select PATH in bin; do ls; break; done <<< 1",
  "getopts b PATH -b; ls",
  "export PATH=bin; ls",
  "declare PATH=bin; ls",
  "typeset PATH=bin; ls",
  "readonly PATH=bin; ls",
  "PATH=bin; ls",
  "PATH=bin ls",
  "PATH=bin:$PATH ls",
  "printf -v HOME .; git status",
  "HOME=. git status",
  "GIT_CONFIG_GLOBAL=g git status",
  "XDG_CONFIG_HOME=x git status",
  "hash -p bin/ls ls; ls",
  // Array readers run a callback every few lines, and assign.
  `mapfile -C 'touch ${MARKER} #' -c 1 a <<< x`,
  `readarray -C 'touch ${MARKER} #' -c 1 a <<< x`,
  "f() { local PATH=bin; ls; }; f",
  // Arithmetic and default-assignment expansions.
  `ls $(( a[$(touch ${MARKER})] ))`,
  `(( x = a[$(touch ${MARKER})] ))`,
  `echo $(( y = a[$(touch ${MARKER})] ))`,
  `: \${x:=$(touch ${MARKER})}`,
  `ls \${x=$(touch ${MARKER})}`,
  `ls \${HOME+$(touch ${MARKER})}`,
  `ls \${NOPE:?$(touch ${MARKER})}`,
  `ls \${PATH#$(touch ${MARKER})}`,
  `ls \${PATH:$(touch ${MARKER}):1}`,
  `ls "\${HOME/#/$(touch ${MARKER})}"`,
  `echo \${x:-\`touch ${MARKER}\`}`,
  `set -- '$(touch ${MARKER})'; echo \${1@P}`,
  // Shell state that runs code later.
  `trap 'touch ${MARKER}' ERR; ls nope`,
  `ls() (touch ${MARKER}); ls`,
  // Command names bash computes or finds.
  `\${PATH:0:0}touch ${MARKER}`,
  `t$@ouch ${MARKER}`,
  `t$()ouch ${MARKER}`,
  `$'\\164ouch' ${MARKER}`,
  `a=(touch ${MARKER}); "\${a[@]}"`,
  `/*/bin/to?ch ${MARKER}`,
  // Wrappers nobody listed.
  `. /dev/stdin <<< 'touch ${MARKER}'`,
  "env PATH=bin ls",
  `nohup touch ${MARKER}`,
  `exec ls > ${MARKER}`,
  `git status; IFS=/ ls; touch ${MARKER}`,
];

async function plantedWorktree(command: string): Promise<TempWorktree> {
  const wt = await tempWorktree(PLANTED);
  for (const fake of ["bin/ls", "b/ls"]) await Deno.chmod(join(wt.path, fake), 0o755);
  if (command.includes("git")) {
    const init = await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output();
    assert.ok(init.success);
  }
  return wt;
}

async function hasMarker(wt: TempWorktree): Promise<boolean> {
  try {
    await Deno.stat(join(wt.path, MARKER));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** The control: bash on its own, in a clean environment, runs the forbidden thing. */
async function assertRealEscape(command: string): Promise<void> {
  await using wt = await plantedWorktree(command);
  await new Deno.Command("bash", {
    args: ["-c", command],
    cwd: wt.path,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: join(wt.path, "nohome") },
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).output();
  assert.equal(await hasMarker(wt), true, `control: bash should run ${JSON.stringify(command)}`);
}

for (const command of [...FINDINGS, ...ESCAPES]) {
  Deno.test(`bash_allow denies the escape ${JSON.stringify(command)}`, async () => {
    await assertRealEscape(command);
    await using wt = await plantedWorktree(command);
    const audit: PermissionRecord[] = [];
    const outcome = await invokeInWorktree(wt, "run_command", { command }, {
      config: CONFIG,
      headless: "yes",
      audit,
    });
    assert.equal(outcome.decision, "denied");
    assert.equal(audit[0]?.action, "deny");
    assert.match(audit[0]?.reason ?? "", /^bash_allow: /);
    assert.match(outcome.output, /or ask the user to run it\): do not retry it/);
    assert.equal(await hasMarker(wt), false);
  });
}

Deno.test("bash_allow escapes: at least 30 beyond the findings", () => {
  assert.ok(ESCAPES.length >= 30);
  assert.equal(new Set([...FINDINGS, ...ESCAPES]).size, FINDINGS.length + ESCAPES.length);
});

/** Command names and arguments the generated lines are made of: escape pieces and plain ones. */
const GENERATED_NAMES = [
  ...["ls", "echo", "cat", "printf", "test", "[", "command", "builtin", ":", "true", "read"],
  ...["l\\s", "'l's", '"echo"', "time printf", "! test", "command -p printf", "builtin test"],
  ...["{ echo", "( test", "if test", "touch", "PATH=bin ls", "x=1", "for PATH in bin; do ls"],
];
const GENERATED_ARGS = [
  ...["-v", `'a[$(touch ${MARKER})]'`, "$_", "*", "-?", "{-v,x}", "\\-v", '"$@"', "$(echo -v)"],
  ...["`echo -v`", "<(echo -v)", "2>&1", ">/dev/null", "x", "--", "'%s'", "$HOME", "${#HOME}"],
  ...["]", "-n", "'-v'", "-'v'", "$'-v'", "~", "{a,b}", "bin", "PATH", "-vPATH", MARKER],
  ...['"$(echo read)"', "<<< x", "< a.txt", "| cat", "$(ls)", "-R", "=", "$1", '-v""'],
  ...["; }", ")", "; then ls; fi", "; done", "${x:=1}", "$((1))", "> x", "&", "$(touch x)"],
];
const GENERATED_OPERATORS = [" ; ", " && ", " || ", " | "];

function generatedLines(count: number): string[] {
  const next = seededRandom(11);
  const pick = (items: readonly string[]) => items[Math.floor(next() * items.length)]!;
  const lines = new Set<string>();
  while (lines.size < count) {
    const segments = Array.from(
      { length: 1 + Math.floor(next() * 3) },
      () =>
        [
          pick(GENERATED_NAMES),
          ...Array.from({ length: Math.floor(next() * 4) }, () => pick(GENERATED_ARGS)),
        ].join(" "),
    );
    lines.add(segments.reduce((line, segment) => line + pick(GENERATED_OPERATORS) + segment));
  }
  return [...lines];
}

/** Runs each line with `bash -c` in one planted worktree; returns the lines that made the marker. */
async function linesThatEscape(lines: readonly string[]): Promise<string[]> {
  await using wt = await plantedWorktree("");
  await wt.write(`a[$(touch ${MARKER})]`, "");
  const driver = 'while IFS= read -r line; do rm -f "$1"; ' +
    'timeout 5 bash -c "$line" </dev/null >/dev/null 2>&1; ' +
    '[ -e "$1" ] && printf "%s\\n" "$line"; done; rm -f "$1"';
  const child = new Deno.Command("bash", {
    args: ["-c", driver, "driver", MARKER],
    cwd: wt.path,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: join(wt.path, "nohome") },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines.join("\n") + "\n"));
  await writer.close();
  const { stdout } = await child.output();
  return new TextDecoder().decode(stdout).split("\n").filter((line) => line !== "");
}

Deno.test("bash_allow covers no generated line that bash lets escape", async () => {
  const lines = generatedLines(400);
  const covered: string[] = [];
  for (const line of lines) {
    if ((await checkBashAllow(line, LIST)).allowed) covered.push(line);
  }
  const escaping = await linesThatEscape(lines);
  // The control: the pieces make real escapes (17 of the 400 lines), and the check is not
  // trivially strict (it covers 60).
  assert.ok(escaping.length >= 10, `only ${escaping.length} generated lines escape`);
  assert.ok(covered.length >= 40, `only ${covered.length} generated lines are covered`);
  assert.deepEqual(escaping.filter((line) => covered.includes(line)), []);
});

Deno.test("replio tool run_command denies the reported escapes with exit 3", async () => {
  // Global config, not the project's .replio/: project settings may be gated by folder trust.
  await using xdg = await tempWorktree({
    "replio/config.yaml": "tool_permission:\n  bash: allow\n  bash_allow: " +
      `${JSON.stringify(LIST)}\n`,
  });
  for (const command of FINDINGS) {
    await using wt = await plantedWorktree(command);
    const { code, stdout, stderr } = await runReplio(
      ["tool", "run_command", JSON.stringify({ command })],
      { cwd: wt.path, env: { XDG_CONFIG_HOME: xdg.path } },
    );
    assert.equal(code, 3, `${command}: ${stdout}${stderr}`);
    assert.match(stderr, /^replio tool: blocked by policy \(bash_allow: .* is not covered/m);
    assert.equal(await hasMarker(wt), false, command);
  }
});

Deno.test("replio tool run_command still runs a covered command under the same config", async () => {
  await using xdg = await tempWorktree({
    "replio/config.yaml": "tool_permission:\n  bash: allow\n  bash_allow: " +
      `${JSON.stringify(LIST)}\n`,
  });
  await using wt = await plantedWorktree("");
  const { code, stdout } = await runReplio(
    ["tool", "run_command", JSON.stringify({ command: "cat a.txt | cat && echo done" })],
    { cwd: wt.path, env: { XDG_CONFIG_HOME: xdg.path } },
  );
  assert.deepEqual([code, stdout.trim()], [0, "exit 0\nhello\ndone"]);
});
