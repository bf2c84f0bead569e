/**
 * `replio completions bash|zsh|fish` (issue #25): each script is loaded by the real shell and
 * asked to complete real command lines. bash is driven through its completion function with
 * COMP_WORDS, zsh by typing Tab in tmux, fish by its own `complete -C`. The expected words come
 * from the commander program itself, so a subcommand added later is checked too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Command } from "commander";
import { buildProgram } from "../src/cli/program.ts";
import { hasProgram } from "./support/has_program.ts";
import { childEnv, MAIN, runReplio } from "./support/replio_process.ts";
import { shellQuote, TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

// zsh and fish are optional outside CI, which installs them.
const HAS_ZSH = await hasProgram("zsh");
const HAS_FISH = await hasProgram("fish");
for (const [shell, present] of [["zsh", HAS_ZSH], ["fish", HAS_FISH]] as const) {
  if (!present) {
    // deno-lint-ignore no-console
    console.error(`completions_test: the ${shell} test is skipped: install ${shell} to run it`);
  }
}

/** A folder with a `replio` command on PATH that runs this checkout, and the env to find it. */
async function replioOnPath() {
  const wt = await tempWorktree({ "src/a.ts": "", "docs/b.md": "", "notes.txt": "" });
  // Outside the worktree, so folder completion there sees only the project's folders.
  const bin = await Deno.makeTempDir({ prefix: "replio_bin_" });
  await Deno.writeTextFile(
    join(bin, "replio"),
    `#!/bin/sh\nexec ${shellQuote(Deno.execPath())} run --no-prompt -A ${shellQuote(MAIN)} "$@"\n`,
  );
  await Deno.chmod(join(bin, "replio"), 0o755);
  const env = childEnv(wt.path, { PATH: `${bin}:${Deno.env.get("PATH") ?? ""}` });
  return {
    wt,
    env,
    async [Symbol.asyncDispose]() {
      await Deno.remove(bin, { recursive: true });
      await wt[Symbol.asyncDispose]();
    },
  };
}

/** Runs `script` in bash in `cwd` with `env`; returns stdout, failing on a non-zero exit. */
async function bash(script: string, cwd: string, env: Record<string, string>): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: ["-c", script],
    cwd,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.equal(out.code, 0, decode(out.stderr));
  return decode(out.stdout);
}

/** Every command of the program with subcommands, and the names (aliases too) each offers. */
function commandGroups(): { path: string[]; names: string[] }[] {
  const program = buildProgram(() => {});
  const help = program.createHelp();
  const walk = (command: Command, path: string[]): { path: string[]; names: string[] }[] => {
    const subs = help.visibleCommands(command);
    const here = subs.length
      ? [{ path, names: subs.flatMap((sub) => [sub.name(), ...sub.aliases()]) }]
      : [];
    return [...here, ...subs.flatMap((sub) => walk(sub, [...path, sub.name()]))];
  };
  return walk(program, []);
}

/**
 * Asks bash's completion function for each command line (the last word is the one completed) and
 * returns the words offered, sorted, one list per line.
 */
async function bashCompletions(lines: string[][]): Promise<string[][]> {
  await using place = await replioOnPath();
  const calls = lines.map((words) => `offer ${words.map(shellQuote).join(" ")}`).join("\n");
  const out = await bash(
    `source <(replio completions bash)
offer() {
  COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"; COMP_POINT=\${#COMP_LINE}; COMPREPLY=()
  _replio replio "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"
  echo "\${COMPREPLY[*]}"
}
${calls}`,
    place.wt.path,
    place.env,
  );
  return out.split("\n").slice(0, -1).map((line) => line.split(" ").filter(Boolean).sort());
}

Deno.test("replio completions bash registers _replio for replio when sourced", async () => {
  await using place = await replioOnPath();
  const out = await bash(
    "source <(replio completions bash); complete -p replio",
    place.wt.path,
    place.env,
  );
  assert.equal(out, "complete -F _replio replio\n");
});

Deno.test("replio completions bash completes commands, subcommands, options and values", async () => {
  const offered = await bashCompletions([
    ["replio", "ses"],
    ["replio", "sessions", ""],
    ["replio", "--model", "m", "sessions", "l"],
    ["replio", "run", "--output", ""],
    ["replio", "sessions", "list", "--"],
    ["replio", "doctor", "--j"],
    ["replio", "--path", ""],
    ["replio", "completions", ""],
    ["replio", "help", "sess"],
  ]);
  assert.deepEqual(offered, [
    ["sessions"],
    ["gc", "help", "list", "show"],
    // The value of --model is skipped, not taken for a command.
    ["list"],
    ["json", "stream-json", "text"],
    ["--help", "--json", "--path"],
    ["--json"],
    // Folders only, not notes.txt.
    ["docs", "src"],
    ["bash", "fish", "zsh"],
    ["sessions"],
  ]);
});

Deno.test("replio completions bash offers every subcommand of the program at its parent", async () => {
  const groups = commandGroups();
  // The program has nested groups (sessions, policy, mcp): the walk covers more than the root.
  assert.ok(groups.length >= 3, JSON.stringify(groups));
  const offered = await bashCompletions(groups.map(({ path }) => ["replio", ...path, ""]));
  assert.deepEqual(offered, groups.map(({ names }) => [...names].sort()));
});

Deno.test("replio completions with an unknown shell is a usage error naming the choices", async () => {
  await using wt = await tempWorktree();
  const run = await runReplio(["completions", "tcsh"], { cwd: wt.path });
  assert.equal(run.code, 2);
  assert.equal(run.stdout, "");
  assert.equal(
    run.stderr,
    "error: command-argument value 'tcsh' is invalid for argument 'shell'. " +
      "Allowed choices are bash, zsh, fish.\n",
  );
});

Deno.test({
  name: "replio completions zsh completes in an interactive zsh (Tab in tmux)",
  ignore: !HAS_ZSH,
  async fn() {
    await using place = await replioOnPath();
    const script = join(place.wt.path, "_replio");
    const made = await runReplio(["completions", "zsh"], { cwd: place.wt.path });
    assert.equal(made.code, 0, made.stderr);
    await Deno.writeTextFile(script, made.stdout);
    await using zsh = await TmuxRepl.start(place.wt.path, [], {
      command: ["zsh", "-f"],
      waitForPrompt: false,
      env: { PATH: place.env.PATH!, HOME: place.wt.path },
    });
    await zsh.enter(
      `PS1='zsh> '; autoload -Uz compinit && compinit -u -D && source ${shellQuote(script)}`,
    );
    await zsh.waitFor(/zsh> $/m, "zsh's prompt after loading the completion");
    await zsh.type("replio ses");
    await zsh.keys("Tab");
    await zsh.waitFor("zsh> replio sessions ", "replio ses<Tab> to become replio sessions");
    await zsh.keys("Tab");
    // The subcommands are listed with their descriptions from --help.
    await zsh.waitFor(/list\s+-- list sessions, newest first/, "the sessions subcommands listed");
    await zsh.keys("C-u");
    await zsh.type("replio run --output ");
    await zsh.keys("Tab");
    await zsh.waitFor(/json\s+stream-json\s+text/, "the --output choices");
  },
});

Deno.test({
  name: "replio completions fish completes through fish's own complete -C",
  ignore: !HAS_FISH,
  async fn() {
    await using place = await replioOnPath();
    const made = await runReplio(["completions", "fish"], { cwd: place.wt.path });
    assert.equal(made.code, 0, made.stderr);
    const script = join(place.wt.path, "replio.fish");
    await Deno.writeTextFile(script, made.stdout);
    const complete = async (line: string) => {
      const out = await new Deno.Command("fish", {
        args: [
          "--no-config",
          "-c",
          `source ${shellQuote(script)}; complete -C ${shellQuote(line)}`,
        ],
        cwd: place.wt.path,
        clearEnv: true,
        env: { ...place.env, HOME: place.wt.path, XDG_DATA_HOME: join(place.wt.path, ".data") },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return new TextDecoder().decode(out.stdout).split("\n").filter(Boolean)
        .map((row) => row.split("\t")[0]!).sort();
    };
    assert.deepEqual(await complete("replio ses"), ["sessions"]);
    assert.deepEqual(await complete("replio sessions "), ["gc", "help", "list", "show"]);
    assert.deepEqual(await complete("replio --model m sessions l"), ["list"]);
    assert.deepEqual(await complete("replio run --output "), ["json", "stream-json", "text"]);
    assert.deepEqual(await complete("replio --path "), ["docs/", "src/"]);
  },
});
