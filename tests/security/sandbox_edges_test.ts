/**
 * Issue 22, items 2–3 and the stand-ins' lifetime (docs/sandbox.md, "What a command cannot
 * reach"). Each finding is reproduced as the red team did, with a marker that only code run
 * outside the sandbox writes (a planted fsmonitor hook that `git status` runs, an MCP server that
 * `replio tools` starts), and each has a control: the same plant with `sandbox.mode: off` does
 * write the marker, so the attack is real. Sockets: sandbox_sockets_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bwrapUsable } from "../../src/plugins/sandbox_bwrap.ts";
import { waitUntil, withDeadline } from "../support/deadline.ts";
import { exists } from "../support/exists.ts";
import { startMockModel } from "../support/mock_model.ts";
import { processesMatching } from "../support/process_state.ts";
import { runReplio } from "../support/replio_process.ts";
import { invokeInWorktree, tempWorktree } from "../support/worktree.ts";
import { git, OFF, outsideTmp, runCommand, trap, userGit } from "./_sandbox_edges.ts";

const ignore = !bwrapUsable();

Deno.test({
  name: "no .git: a sandboxed command cannot create one with an fsmonitor hook; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await tempWorktree();
    await using t = await trap();
    const plant = `${t.plantHook}; git init -q . && git config core.fsmonitor "$PWD/hook.sh"`;
    const output = await runCommand(wt, plant);
    assert.match(output, /\.git.*Read-only file system/);
    assert.equal(await exists(join(wt.path, ".git")), false, "no .git, not even the stand-in");
    await userGit(wt.path, "status");
    assert.deepEqual(await t.ran(), []);

    await wt.write(".xdg/replio/config.yaml", OFF);
    await runCommand(wt, plant);
    await userGit(wt.path, "status");
    assert.deepEqual(await t.ran(), ["ran"], "the control's git status runs the planted hook");
  },
});

Deno.test({
  name: "no .git under replio run: the model's command cannot create one; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await tempWorktree();
    await using t = await trap();
    const plant = `${t.plantHook}; git init -q . && git config core.fsmonitor "$PWD/hook.sh"`;
    const session = async () => {
      await using mock = startMockModel([
        { toolCalls: [{ name: "run_command", arguments: { command: plant } }] },
        { text: "done" },
      ]);
      const run = await runReplio(
        ["run", "--base-url", mock.baseUrl, "--model", "m", "--yes", "set the repository up"],
        { cwd: wt.path },
      );
      assert.equal(run.code, 0, run.stderr);
    };
    await session();
    assert.equal(await exists(join(wt.path, ".git")), false);
    await userGit(wt.path, "status");
    assert.deepEqual(await t.ran(), []);

    await wt.write(".xdg/replio/config.yaml", OFF);
    await session();
    await userGit(wt.path, "status");
    assert.deepEqual(await t.ran(), ["ran"]);
  },
});

Deno.test({
  name:
    "no .replio: a sandboxed command cannot plant an MCP server that replio tools starts; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await tempWorktree();
    await using t = await trap();
    const plant = "mkdir -p .replio && printf 'mcp_servers:\\n  helper:\\n    command: sh\\n" +
      `    args: ["-c", "echo ran >> ${t.marker}"]\\n' > .replio/config.yaml`;
    const output = await runCommand(wt, plant);
    assert.match(output, /\.replio.*Read-only file system/);
    assert.equal(await exists(join(wt.path, ".replio")), false);
    await runReplio(["tools", "--trust"], { cwd: wt.path });
    assert.deepEqual(await t.ran(), []);

    await wt.write(".xdg/replio/config.yaml", OFF);
    await runCommand(wt, plant);
    await runReplio(["tools", "--trust"], { cwd: wt.path });
    assert.deepEqual(
      await t.ran(),
      ["ran"],
      "the control's replio tools starts the planted server",
    );
  },
});

Deno.test({
  name:
    "a nested repository's .git/config is read-only to a sandboxed command; unsandboxed it is not",
  ignore,
  async fn() {
    await using wt = await tempWorktree();
    await using t = await trap();
    await git(wt.path, "init", "-q");
    await git(wt.path, "init", "-q", "vendor/lib");
    const plant = `${t.plantHook}; git -C vendor/lib config core.fsmonitor "$PWD/hook.sh"`;
    assert.match(await runCommand(wt, plant), /could not lock config file|Read-only file system/);
    await userGit(join(wt.path, "vendor/lib"), "status");
    assert.deepEqual(await t.ran(), []);

    await wt.write(".xdg/replio/config.yaml", OFF);
    await runCommand(wt, plant);
    await userGit(join(wt.path, "vendor/lib"), "status");
    assert.deepEqual(await t.ran(), ["ran"]);
  },
});

Deno.test({
  name:
    "a linked worktree's .git file cannot be pointed at a planted repository; unsandboxed it can",
  ignore,
  async fn() {
    await using wt = await tempWorktree();
    await using t = await trap();
    await git(wt.path, "init", "-q");
    await git(
      wt.path,
      "-c",
      "user.name=t",
      "-c",
      "user.email=t@t",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "x",
    );
    await git(wt.path, "worktree", "add", "-q", "trees/feature");
    // A new repository may be made (docs/sandbox.md names it); the .git file may not change.
    const plant = `${t.plantHook}; git init -q evil && git -C evil config core.fsmonitor ` +
      `"$PWD/hook.sh" && echo "gitdir: $PWD/evil/.git" > trees/feature/.git`;
    assert.match(await runCommand(wt, plant), /trees\/feature\/\.git: Read-only file system/);
    await userGit(join(wt.path, "trees/feature"), "status");
    assert.deepEqual(await t.ran(), []);

    await wt.write(".xdg/replio/config.yaml", OFF);
    await runCommand(wt, plant.replace("git init -q evil &&", "true &&"));
    await userGit(join(wt.path, "trees/feature"), "status");
    assert.deepEqual(await t.ran(), ["ran"]);
  },
});

async function snapshot(dir: string, under = ""): Promise<string[]> {
  const lines: string[] = [];
  const entries = [...Deno.readDirSync(join(dir, under))].sort((a, b) => a.name < b.name ? -1 : 1);
  for (const entry of entries) {
    const path = join(under, entry.name);
    const info = await Deno.lstat(join(dir, path));
    if (entry.isDirectory) {
      lines.push(`${path}/ ${info.mode}`, ...await snapshot(dir, path));
    } else if (entry.isSymlink) {
      lines.push(`${path} -> ${await Deno.readLink(join(dir, path))}`);
    } else {
      lines.push(`${path} ${info.mode} ${await Deno.readTextFile(join(dir, path))}`);
    }
  }
  return lines;
}

Deno.test({
  name:
    "a command in a folder without .git or .replio sees read-only stand-ins and leaves the folder as it was",
  ignore,
  async fn() {
    await using wt = await tempWorktree({ "a.txt": "a\n", "src/b.ts": "b\n" });
    const before = await snapshot(wt.path);
    const command = "ls -A; mkdir .replio/x; rm -rf .git; git init -q .";
    // A background job outlives the command: the sandbox ends after it, and only then do the
    // stand-ins go. It is gone with the sandbox.
    const tag = `replio_edges_job_${crypto.randomUUID()}`;
    const job = `(bash -c 'sleep 30; : ${tag}' &) ; `;
    const { output } = await invokeInWorktree(wt, "run_command", { command: job + command });
    assert.match(output, /^exit 128\n\.git\n\.replio\na\.txt\nsrc\n/);
    assert.match(output, /\.replio\/x.*Read-only file system/);
    assert.match(output, /rm: cannot remove '\.git': Device or resource busy/);
    assert.deepEqual(await snapshot(wt.path), before);
    assert.equal(await processesMatching(tag), 0);

    // Control: the same command with the sandbox off leaves the folder changed.
    await invokeInWorktree(wt, "run_command", { command }, { config: { "sandbox.mode": "off" } });
    assert.notDeepEqual(await snapshot(wt.path), before);
  },
});

/**
 * Another replio's long-lived sandbox (an MCP server's, through `bwrapArgs`) in `worktree`: it
 * prints `ready` once set up, then on a line from stdin runs `then` and prints `done`. With
 * `dieWithParent: false` its argv lacks that flag (the control of the orphan test).
 */
function otherSandbox(
  worktree: string,
  then: string,
  options: { dieWithParent?: boolean } = {},
): Deno.ChildProcess {
  const api = new URL("../../src/plugins/sandbox_bwrap.ts", import.meta.url).pathname;
  const drop = options.dieWithParent === false ? "--die-with-parent" : "";
  const script = `
import { bwrapArgs } from "${api}";
const plan = { kind: "bwrap", network: false, worktree: "${worktree}", label: "" } as const;
const prefix = (await bwrapArgs(plan, "${worktree}")).filter((arg) => arg !== "${drop}");
const args = [...prefix, "bash", "-c", ${
    JSON.stringify(`echo ready; read line; ${then}; echo done`)
  }];
await new Deno.Command("bwrap", { args, stdin: "inherit", stdout: "inherit", stderr: "inherit" })
  .output();`;
  return new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

/** The child's stdout, line by line, and a way to send it a line. */
function talk(child: Deno.ChildProcess) {
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  return {
    async until(word: string): Promise<string> {
      while (!buffered.includes(`${word}\n`)) {
        const { value, done } = await withDeadline(lines.read(), `"${word}" from the sandbox`);
        if (done) throw new Error(`The sandbox ended before "${word}": ${buffered}`);
        buffered += value;
      }
      const seen = buffered;
      buffered = "";
      return seen;
    },
    async send(line: string) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(`${line}\n`));
      writer.releaseLock();
    },
    async end() {
      await child.stdin.close();
      await lines.cancel();
      await child.status;
    },
  };
}

Deno.test({
  name:
    "a stand-in another sandbox mounts stays after a command here; removing it would unguard that sandbox",
  ignore,
  async fn() {
    await using wt = await tempWorktree();
    const attempt = "git init -q . 2>&1 | tail -1; ls -A .git | head -1";
    const other = talk(otherSandbox(wt.path, attempt));
    await other.until("ready");
    // This process's own command: its stand-in hold ends with it, but the other's mount stays.
    const ours = await invokeInWorktree(wt, "run_command", { command: "ls -A" });
    assert.equal(ours.output, "exit 0\n.git\n.replio");
    assert.equal(await exists(join(wt.path, ".git")), true, "the other sandbox still needs it");
    await other.send("go");
    assert.match(await other.until("done"), /Read-only file system\ndone/);
    await other.end();
    // The other replio ended normally: it removed its stand-ins on the way out.
    assert.deepEqual([...Deno.readDirSync(wt.path)], []);

    // Control: a stand-in removed while that sandbox runs no longer guards it.
    const unguarded = talk(otherSandbox(wt.path, attempt));
    await unguarded.until("ready");
    await Deno.remove(join(wt.path, ".git"));
    await unguarded.send("go");
    assert.doesNotMatch(await unguarded.until("done"), /Read-only/);
    await unguarded.end();
    assert.equal(await exists(join(wt.path, ".git/HEAD")), true, "git init made a repository");
  },
});

Deno.test({
  name:
    "a sandbox dies with the replio that started it (--die-with-parent); without the flag it outlives it",
  ignore,
  async fn() {
    await using wt = await tempWorktree({ ".git/.keep": "", ".replio/.keep": "" });
    for (const withFlag of [true, false]) {
      const tag = `replio_edges_orphan_${crypto.randomUUID()}`;
      const holder = otherSandbox(wt.path, `true # ${tag}`, { dieWithParent: withFlag });
      const other = talk(holder);
      await other.until("ready");
      holder.kill("SIGKILL");
      await holder.status;
      if (withFlag) {
        await waitUntil(
          async () => await processesMatching(tag) === 0,
          "the orphaned sandbox's end",
        );
      } else {
        // Control: nothing ends it; it waits on its stdin for good, so this is no race.
        assert.ok(await processesMatching(tag) > 0, "without the flag the sandbox outlives replio");
        const pids = await new Deno.Command("pgrep", { args: ["-f", tag] }).output();
        for (const pid of new TextDecoder().decode(pids.stdout).trim().split("\n")) {
          // Killing bwrap ends the sandbox's own processes too: one may be gone already.
          try {
            Deno.kill(Number(pid), "SIGKILL");
          } catch (error) {
            if (!(error instanceof Deno.errors.NotFound)) throw error;
          }
        }
        await waitUntil(async () => await processesMatching(tag) === 0, "the control's cleanup");
      }
      await other.end().catch(() => {});
    }
  },
});

Deno.test({
  name:
    "replio may not make a stand-in (a narrow --allow-write): the command is refused in one line, not run bare",
  ignore,
  async fn() {
    // Outside /tmp, which the grant below opens for the sandbox's probe.
    await using wt = await outsideTmp("replio_edges_wt_");
    const marker = join(wt.path, "ran.txt");
    const command = JSON.stringify({ command: "echo ran >> ran.txt" });
    // Everything but writing the worktree's root (the sandbox's probe makes its folder in /tmp).
    const flags = (write: string) => [
      "--allow-read",
      "--allow-run",
      "--allow-env",
      `--allow-write=${write},/tmp`,
    ];
    const refused = await runReplio(["tool", "run_command", command, "--yes"], {
      cwd: wt.path,
      denoFlags: flags(join(wt.path, ".replio")),
    });
    assert.equal(
      refused.stdout,
      `Error: Cannot run commands in the sandbox: "${wt.path}" has no .git, and replio may not ` +
        `put there the empty read-only stand-in that keeps a command from making one: Requires ` +
        `write access to "${join(wt.path, ".git")}": restart replio with ` +
        `--allow-write=${join(wt.path, ".git")} (or a parent directory)\n`,
    );
    assert.doesNotMatch(refused.stderr, /\n\s+at /, "no stack trace");
    assert.equal(await exists(marker), false);

    // Control: with the worktree writable the same command runs, in the sandbox.
    const ran = await runReplio(["tool", "run_command", command, "--yes"], {
      cwd: wt.path,
      denoFlags: flags(wt.path),
    });
    assert.equal(ran.stdout, "exit 0\n", ran.stderr);
    assert.equal(await Deno.readTextFile(marker), "ran\n");
  },
});
