import assert from "node:assert/strict";
import { join } from "node:path";
import { runProcess } from "../../src/plugins/api.ts";
import type { PermissionRecord } from "../../src/tools/mod.ts";
import { invokeInWorktree, type TempWorktree, tempWorktree } from "../../tests/support/worktree.ts";
import { HANG_MS } from "../../tests/support/deadline.ts";
import { checkBashAllow } from "./bash_allow.ts";

const PREFIXES = ["echo", "ls", "git status", "cat"];
/** The list restricts; `bash: allow` is what lets a covered command run without asking. */
const CONFIG = { "tool_permission.bash_allow": PREFIXES, "tool_permission.bash": "allow" };

/** The file every bypass attempt tries to create. */
const MARKER = "M";

/**
 * Bypass attempts against PREFIXES. Each tries to create MARKER; `dead` ones would not even
 * when run by bash itself (bash reads them differently, or they fail), but must still be refused.
 */
const ATTEMPTS: readonly { command: string; dead?: true }[] = [
  // Command substitution inside an allowed command, in every place bash expands it.
  { command: "ls $(touch M)" },
  { command: "ls `touch M`" },
  { command: 'echo "$(touch M)"' },
  { command: 'echo "`touch M`"' },
  { command: "echo $(echo $(touch M))" },
  { command: "echo $(ls | touch M)" },
  { command: 'echo "$(ls)$(touch M)"' },
  { command: "echo `ls; touch M`" },
  { command: "echo `echo \\$(touch M)`" },
  { command: "echo `echo \\`touch M\\``" },
  { command: 'ls "$(touch M)"' },
  { command: 'cat -- "$(touch M)"' },
  { command: "echo $(touch M)$(ls)" },
  // Process substitution.
  { command: "cat <(touch M)" },
  { command: "ls >(touch M)" },
  { command: "ls > >(touch M)" },
  { command: "cat < <(touch M)" },
  { command: "ls <(ls) >(touch M)" },
  // Word splitting and brace tricks.
  { command: "ls${IFS}-la;touch${IFS}M" },
  { command: "${IFS}touch M" },
  { command: "{touch,M}" },
  // Pipes, chains and background jobs.
  { command: "ls |& touch M" },
  { command: "ls | touch M" },
  { command: "ls;touch M" },
  { command: "ls&&touch M" },
  { command: "cat nope||touch M" },
  { command: "ls -- ;touch M" },
  { command: "git status;touch M" },
  { command: "git status && touch M || ls" },
  { command: "lsblk;touch M" },
  { command: "touch M &" },
  { command: "ls & touch M" },
  { command: "echo $(touch M &)" },
  // Line breaks and control characters.
  { command: "ls\ntouch M" },
  { command: "ls\rtouch M", dead: true },
  { command: "ls\r\ntouch M" },
  { command: "ls\vtouch M", dead: true },
  // Subshells and groups.
  { command: "(touch M)" },
  { command: "( (touch M) )" },
  { command: "{ touch M; }" },
  { command: "{ ls; touch M; }" },
  { command: "ls && { touch M; }" },
  { command: "cat nope || (touch M)" },
  // Redirections that write.
  { command: "echo x > M" },
  { command: "echo x >> M" },
  { command: "echo x &> M" },
  { command: "echo x &>> M" },
  { command: "echo x >| M" },
  { command: "cat <> M" },
  { command: "echo x >&M" },
  { command: "ls 1>M" },
  { command: "ls 2>>M" },
  { command: "ls 3<>M" },
  { command: "echo x >/dev/null >M" },
  { command: "echo x 2>/dev/null >M" },
  { command: "> M ls" },
  { command: "{ ls; } > M" },
  { command: "(ls) > M" },
  { command: "for f in a; do ls; done > M" },
  { command: "{fd}>M ls" },
  { command: "echo >/dev/null/../../M", dead: true },
  { command: "exec > M" },
  // Running text as code.
  { command: "eval touch M" },
  { command: "eval 'touch M'" },
  { command: "exec touch M" },
  { command: "builtin eval touch M" },
  { command: "source s.sh" },
  { command: ". s.sh" },
  { command: ". ./s.sh" },
  { command: "cat s.sh | bash" },
  { command: "echo touch M | sh" },
  { command: "sh -c 'touch M'" },
  { command: "trap 'touch M' EXIT; ls" },
  // Environment prefixes and assignments.
  { command: "FOO=$(touch M) ls" },
  { command: "x=$(touch M)" },
  { command: "x=${y:-$(touch M)} ls" },
  {
    command: "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch M' " +
      "git status",
  },
  { command: "git -c core.fsmonitor='touch M' status" },
  // Arithmetic, tests and declarations.
  { command: "echo $(( $(touch M) ))" },
  { command: "echo $[ $(touch M) ]" },
  { command: "(( $(touch M) ))" },
  { command: "echo $((x[$(touch M)]))" },
  { command: "let x=$(touch M)" },
  { command: "[[ $(touch M) ]]" },
  { command: "declare x=$(touch M)" },
  { command: "export X=$(touch M)" },
  // Parameter expansions.
  { command: "echo ${x:-$(touch M)}" },
  { command: "echo ${x:=$(touch M)}" },
  { command: 'echo "${x:-$(touch M)}"' },
  { command: "ls ${x[$(touch M)]}" },
  { command: "echo ${HOME/$(touch M)/}" },
  // Command names bash computes.
  { command: "$'\\x74ouch' M" },
  { command: "$'touch' M" },
  { command: '"t"ouch M' },
  { command: "t\\ouch M" },
  { command: "/usr/bin/touch M" },
  { command: "$(touch M)" },
  { command: "`touch M`" },
  { command: "echo hi; $(touch M)" },
  // Here-strings and heredocs.
  { command: "cat <<< $(touch M)" },
  { command: 'cat <<< "$(touch M)"' },
  { command: "cat <<EOF\n$(touch M)\nEOF" },
  { command: "cat <<EOF", dead: true },
  { command: "cat <<-EOF", dead: true },
  // Functions, aliases, coprocesses.
  { command: "f() { touch M; }; f" },
  { command: "function f { touch M; }; f" },
  { command: "ls() { touch M; }; ls" },
  { command: "alias ls='touch M'; ls", dead: true },
  { command: "coproc touch M" },
  { command: "coproc { touch M; }" },
  // Compound commands.
  { command: "time touch M" },
  { command: "! touch M" },
  { command: "if touch M; then ls; fi" },
  { command: "if ls; then touch M; fi" },
  { command: "if false; then ls; else touch M; fi" },
  { command: "while touch M; do break; done" },
  { command: "until cat M; do touch M; done" },
  { command: "for x in $(touch M); do echo; done" },
  { command: "for M in M; do touch $M; done" },
  { command: "for ((i=0;i<1;i++)); do touch M; done" },
  { command: "select x in a; do touch M; done", dead: true },
  { command: "case $(touch M) in *) ;; esac" },
  { command: "case a in a) touch M;; esac" },
  { command: "case a in $(touch M)) ls;; esac" },
  // Programs that run other programs.
  { command: "command touch M" },
  { command: "env touch M" },
  { command: "xargs touch <<< M" },
  { command: "find . -maxdepth 0 -exec touch M ';'" },
];

async function bypassWorktree(command: string): Promise<TempWorktree> {
  const wt = await tempWorktree({ "s.sh": `touch ${MARKER}\n` });
  if (command.includes("git")) {
    assert.ok(
      (await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output()).success,
    );
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

for (const { command, dead } of ATTEMPTS) {
  Deno.test(`checkBashAllow refuses the bypass ${JSON.stringify(command)}`, async () => {
    assert.equal((await checkBashAllow(command, PREFIXES)).allowed, false);
    {
      await using wt = await bypassWorktree(command);
      const outcome = await invokeInWorktree(wt, "run_command", { command }, {
        config: CONFIG,
        headless: "no",
      });
      assert.equal(outcome.decision, "denied");
      assert.equal(await hasMarker(wt), false);
    }
    if (!dead) {
      // The attempt is real: bash on its own creates the marker.
      await using wt = await bypassWorktree(command);
      await runProcess({ command, cwd: wt.path, timeoutMs: HANG_MS });
      assert.equal(await hasMarker(wt), true);
    }
  });
}

Deno.test("checkBashAllow has a corpus of at least 30 bypass attempts", () => {
  assert.ok(ATTEMPTS.length >= 30);
});

/** Allowed commands and what they print in a worktree holding `a.txt` ("hello"). */
const ALLOWED: readonly { command: string; output: string }[] = [
  { command: "ls", output: "a.txt" },
  { command: "ls -la a.txt | cat | cat", output: "" },
  { command: "echo hi && echo there", output: "hi\nthere" },
  { command: "cat a.txt; echo done;", output: "hello\ndone" },
  { command: "cat nope 2>/dev/null || echo missing", output: "missing" },
  { command: "echo x >/dev/null 2>&1; echo y >&2", output: "y" },
  { command: "echo '$(touch M)' \"\\$(touch M)\"", output: "$(touch M) $(touch M)" },
  { command: "(ls a.txt) |& cat", output: "a.txt" },
  { command: "{ echo a; echo b; }", output: "a\nb" },
  { command: "if ls a.txt >/dev/null; then echo yes; else echo no; fi", output: "yes" },
  { command: "case a.txt in *.txt) echo text;; esac", output: "text" },
  { command: "cat <<< hello", output: "hello" },
  { command: "'echo' \"quoted\" # $(touch M)", output: "quoted" },
  { command: "! ls nope 2>/dev/null && echo absent", output: "absent" },
  { command: "git status --porcelain", output: "?? a.txt" },
];

for (const { command, output } of ALLOWED) {
  Deno.test(`checkBashAllow allows and run_command runs ${JSON.stringify(command)}`, async () => {
    assert.deepEqual(await checkBashAllow(command, PREFIXES), { allowed: true });
    await using wt = await tempWorktree({ "a.txt": "hello\n" });
    if (command.startsWith("git")) {
      assert.ok(
        (await new Deno.Command("git", { args: ["init", "-q"], cwd: wt.path }).output()).success,
      );
    }
    const audit: PermissionRecord[] = [];
    const outcome = await invokeInWorktree(wt, "run_command", { command }, {
      config: CONFIG,
      headless: "no",
      audit,
    });
    // ls -la prints dates and sizes: only its exit line is compared.
    const expected = command.startsWith("ls -la") ? "exit 0" : `exit 0\n${output}`;
    const got = command.startsWith("ls -la") ? outcome.output.split("\n")[0] : outcome.output;
    assert.equal(got, expected);
    assert.deepEqual([audit[0]?.action, audit[0]?.reason], [
      "allow",
      "tool_permission.bash; bash_allow covers it",
    ]);
    assert.equal(await hasMarker(wt), false);
  });
}

Deno.test("checkBashAllow matches prefixes on whole words", async () => {
  assert.deepEqual(await checkBashAllow("ls -la", ["ls"]), { allowed: true });
  assert.deepEqual(await checkBashAllow("git status -s", ["git status"]), { allowed: true });
  assert.deepEqual(await checkBashAllow("lsblk", ["ls"]), {
    allowed: false,
    reason: 'bash_allow: "lsblk" is not covered',
  });
  assert.deepEqual(await checkBashAllow("git push", ["git status"]), {
    allowed: false,
    reason: 'bash_allow: "git push" is not covered',
  });
  assert.deepEqual(await checkBashAllow("git", ["git status"]), {
    allowed: false,
    reason: 'bash_allow: "git" is not covered',
  });
});

Deno.test("checkBashAllow names the first part that is not covered", async () => {
  assert.deepEqual(await checkBashAllow("ls && rm -rf x; rm y", PREFIXES), {
    allowed: false,
    reason: 'bash_allow: "rm -rf x" is not covered',
  });
  assert.deepEqual(await checkBashAllow("echo $CMD; $CMD x", PREFIXES), {
    allowed: false,
    reason: 'bash_allow: "$CMD x" is not covered: its command name is an expansion',
  });
  assert.deepEqual(await checkBashAllow("echo ok > out.txt", PREFIXES), {
    allowed: false,
    reason: 'bash_allow: "> out.txt" is not covered: it writes a file',
  });
  assert.deepEqual(await checkBashAllow("ls &", PREFIXES), {
    allowed: false,
    reason: 'bash_allow: "ls &" is not covered: background jobs are not checked',
  });
  assert.deepEqual(await checkBashAllow("ls; for f in a b; do echo $f; done", PREFIXES), {
    allowed: false,
    reason: 'bash_allow: "for f in a b; do echo $f; done" is not covered: ' +
      "loops that assign a variable are never covered",
  });
  assert.deepEqual(await checkBashAllow("ls; read x", [...PREFIXES, "read"]), {
    allowed: false,
    reason: 'bash_allow: "read x" is not covered: it assigns variables',
  });
});

Deno.test("checkBashAllow rejects heredocs, line breaks and unparsable commands", async () => {
  const rejected = (problem: string) => ({
    allowed: false,
    reason: `bash_allow: ${problem}`,
  });
  assert.deepEqual(
    await checkBashAllow("cat <<EOF", PREFIXES),
    rejected("heredocs are not allowed"),
  );
  assert.deepEqual(
    await checkBashAllow("cat <<EOF\nx\nEOF", PREFIXES),
    rejected("multi-line commands are not allowed"),
  );
  assert.deepEqual(
    await checkBashAllow("ls\r", PREFIXES),
    rejected("multi-line commands are not allowed"),
  );
  assert.deepEqual(
    await checkBashAllow("ls\x1b[2J", PREFIXES),
    rejected("control characters are not allowed"),
  );
  assert.deepEqual(
    await checkBashAllow("ls 'x", PREFIXES),
    rejected("cannot parse the command: 1:4: reached EOF without closing quote '"),
  );
});

Deno.test("checkBashAllow allows env prefixes and eval only when a prefix names them", async () => {
  assert.deepEqual(await checkBashAllow("LC_ALL=C ls -la", ["LC_ALL=C ls"]), { allowed: true });
  assert.equal((await checkBashAllow("LC_ALL=C cat x", ["LC_ALL=C ls", "cat"])).allowed, false);
  assert.deepEqual(await checkBashAllow("eval ls", ["eval"]), { allowed: true });
});

Deno.test("checkBashAllow ignores empty prefixes and refuses an empty command", async () => {
  assert.equal((await checkBashAllow("touch M", ["", "  "])).allowed, false);
  assert.deepEqual(await checkBashAllow(" ", ["ls"]), {
    allowed: false,
    reason: "bash_allow: no command",
  });
});

Deno.test("run_command denies a heredoc under bash_allow even with --yes", async () => {
  await using wt = await tempWorktree();
  const audit: PermissionRecord[] = [];
  const outcome = await invokeInWorktree(wt, "run_command", { command: "cat <<EOF" }, {
    config: CONFIG,
    headless: "yes",
    audit,
  });
  assert.equal(
    outcome.output,
    "Error: run_command is denied by policy (bash_allow: heredocs are not allowed: " +
      'use only commands that start with "echo", "ls", "git status", "cat" (no assignments, ' +
      "loops or arithmetic), or ask the user to run it): do not retry it; use another tool " +
      "or approach",
  );
  assert.deepEqual([audit[0]?.action, audit[0]?.decision], ["deny", "denied"]);
});

Deno.test("run_command denies a part bash_allow does not cover, even with --yes", async () => {
  await using wt = await tempWorktree();
  const audit: PermissionRecord[] = [];
  const outcome = await invokeInWorktree(wt, "run_command", { command: "ls; touch M" }, {
    config: CONFIG,
    headless: "yes",
    audit,
  });
  assert.equal(outcome.decision, "denied");
  assert.deepEqual(
    [audit[0]?.action, audit[0]?.reason],
    [
      "deny",
      'bash_allow: "touch M" is not covered: use only commands that start with "echo", "ls", ' +
      '"git status", "cat" (no assignments, loops or arithmetic), or ask the user to run it',
    ],
  );
  assert.equal(await hasMarker(wt), false);
});

Deno.test("run_command denies what bash_allow does not cover under tool_permission.bash allow", async () => {
  for (const command of ["touch M", "ls; touch M"]) {
    await using wt = await tempWorktree();
    const audit: PermissionRecord[] = [];
    const outcome = await invokeInWorktree(wt, "run_command", { command }, {
      config: { ...CONFIG, "tool_permission.bash": "allow" },
      headless: "yes",
      audit,
    });
    assert.deepEqual([audit[0]?.action, outcome.decision], ["deny", "denied"]);
    assert.match(audit[0]?.reason ?? "", /^bash_allow: "touch M" is not covered: /);
    assert.equal(await hasMarker(wt), false);
  }
});

Deno.test("run_command allows a covered command under tool_permission.bash allow", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  const audit: PermissionRecord[] = [];
  const outcome = await invokeInWorktree(wt, "run_command", { command: "cat a.txt" }, {
    config: { ...CONFIG, "tool_permission.bash": "allow" },
    headless: "no",
    audit,
  });
  assert.deepEqual([outcome.output, audit[0]?.action, audit[0]?.reason], [
    "exit 0\nhello",
    "allow",
    "tool_permission.bash; bash_allow covers it",
  ]);
});

Deno.test("a covered command follows tool_permission.bash: under ask it asks, headless it is denied", async () => {
  await using wt = await tempWorktree({ "a.txt": "hello\n" });
  const config = { "tool_permission.bash_allow": PREFIXES, "tool_permission.bash": "ask" };
  const denied: PermissionRecord[] = [];
  const refused = await invokeInWorktree(wt, "run_command", { command: "cat a.txt" }, {
    config,
    headless: "no",
    audit: denied,
  });
  assert.equal(refused.decision, "denied");
  assert.deepEqual([denied[0]?.action, denied[0]?.reason], [
    "ask",
    "tool_permission.bash; bash_allow covers it; headless",
  ]);
  const granted: PermissionRecord[] = [];
  const ran = await invokeInWorktree(wt, "run_command", { command: "cat a.txt" }, {
    config,
    headless: "yes",
    audit: granted,
  });
  assert.deepEqual([ran.output, granted[0]?.action], ["exit 0\nhello", "ask"]);
});

Deno.test("checkBashAllow decides the examples of docs/permissions.md", async () => {
  const prefixes = ["ls", "cat", "echo", "git status", "printf", "test"];
  const covered = [
    "ls -la src | cat",
    "git status --porcelain && echo clean",
    "cat a.txt 2>/dev/null || echo missing",
    "if test -f a.txt; then cat a.txt; fi",
    "printf '%s\\n' \"$HOME\"",
    "'l's -la",
    "echo ${#HOME} ${HOME} $HOME",
  ];
  const notCovered = [
    'echo "$(ls)"',
    "cat <(ls)",
    "echo `ls`",
    "ls; touch x",
    "lsblk",
    "git -C other status",
    "echo $(rm x)",
    "echo hi > out.txt",
    "ls &",
    "for PATH in bin; do ls; done",
    "printf -v PATH bin; ls",
    "test -v 'a[$(cmd)]'",
    "echo $(( a[$(cmd)] ))",
    "(( x = 1 ))",
    "ls ${x:=$(cmd)}",
    "ls ${x:-y}",
    "HOME=. git status",
    "$CMD x",
    "t$@ouch x",
    "$'\\x6c's",
    "/*/bin/ls",
    "l\\s",
    "cat <<EOF",
    "x=1; ls",
    "command printf -v x y",
    "set -e; ls",
  ];
  for (const command of covered) {
    assert.deepEqual(await checkBashAllow(command, prefixes), { allowed: true }, command);
  }
  for (const command of notCovered) {
    assert.equal((await checkBashAllow(command, prefixes)).allowed, false, command);
  }
});

Deno.test("checkBashAllow covers an env prefix only when a prefix spells it out", async () => {
  assert.deepEqual(await checkBashAllow("LC_ALL=C ls", ["ls"]), {
    allowed: false,
    reason: 'bash_allow: "LC_ALL=C ls" is not covered: ' +
      "an assignment before a command is covered only when a prefix spells it out",
  });
  assert.deepEqual(await checkBashAllow("LC_ALL=C ls", ["LC_ALL=C ls"]), { allowed: true });
  assert.equal((await checkBashAllow("LC_ALL=C; ls", ["LC_ALL=C ls", "LC_ALL=C"])).allowed, false);
});
