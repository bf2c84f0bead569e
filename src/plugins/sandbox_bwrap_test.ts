import assert from "node:assert/strict";
import { join } from "../fs/path.ts";
import { bwrapArgs, bwrapUsable, sandboxHint, type SandboxPlan } from "./sandbox_bwrap.ts";

const BWRAP: SandboxPlan = {
  kind: "bwrap",
  network: false,
  worktree: "/tmp/wt",
  label: "bwrap(net=off, write=worktree)",
};

Deno.test("sandboxHint names a write the sandbox refused: read-only, or the host's /tmp hidden", () => {
  assert.match(
    sandboxHint(BWRAP, 1, "touch: cannot touch '/etc/x': Read-only file system")!,
    /writes outside the worktree/,
  );
  // /tmp is private inside the sandbox: a host path there reads as missing, not read-only.
  assert.match(
    sandboxHint(BWRAP, 1, "touch: cannot touch '/tmp/other/x': No such file or directory")!,
    /\/tmp is private inside the sandbox/,
  );
  assert.match(
    sandboxHint(BWRAP, 1, "bash: line 1: /tmp/x: No such file or directory")!,
    /private/,
  );
});

Deno.test("sandboxHint blames nothing the sandbox did not do", () => {
  // A file missing inside the worktree is the command's own business.
  assert.equal(
    sandboxHint(BWRAP, 1, "cat: /tmp/wt/missing.txt: No such file or directory"),
    null,
  );
  // …but a sibling that merely starts with the worktree's name is outside it.
  assert.notEqual(sandboxHint(BWRAP, 1, "cat: /tmp/wtx: No such file or directory"), null);
  assert.equal(sandboxHint(BWRAP, 0, "Read-only file system"), null, "it succeeded");
  assert.equal(sandboxHint({ ...BWRAP, kind: "none" }, 1, "Read-only file system"), null);
  assert.equal(sandboxHint(BWRAP, 1, "error: test failed"), null);
});

/** The probe's answer in a fresh process: in the background (as `replio run` starts it) or not. */
async function probeIn(how: "background" | "sync", path: string) {
  const here = import.meta.dirname!;
  const script = `
import { Config } from "${here}/../config/mod.ts";
import { bwrapProblem, bwrapUsable, probeBwrapSoon } from "${here}/sandbox_bwrap.ts";
if ("${how}" === "background") await probeBwrapSoon(Config.defaults());
console.log(JSON.stringify({ usable: bwrapUsable(), reason: bwrapProblem() }));`;
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    env: { PATH: path },
  }).output();
  assert.ok(success);
  return JSON.parse(new TextDecoder().decode(stdout)) as { usable: boolean; reason: string };
}

Deno.test("the background probe gives the answer the synchronous one gives, bwrap there or not", async () => {
  const path = Deno.env.get("PATH") ?? "";
  const found = await probeIn("sync", path);
  assert.deepEqual(await probeIn("background", path), found);
  // Control: without bwrap on PATH both say so, so the comparison above can tell them apart.
  const missing = await probeIn("sync", "/nonexistent");
  assert.equal(missing.usable, false);
  assert.match(missing.reason, /bwrap|No such file|not found/i);
  assert.deepEqual(await probeIn("background", "/nonexistent"), missing);
  // Where bwrap works (CI installs it), the first answer is yes.
  if (new Deno.Command("bwrap", { args: ["--version"] }).outputSync().success) {
    assert.equal(found.usable, true);
  }
});

Deno.test("sandboxHint names the hidden sockets when a client could not reach its daemon", () => {
  const docker = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the " +
    "docker daemon running?";
  assert.match(sandboxHint(BWRAP, 1, docker)!, /the host's sockets .* are out of reach/);
  assert.match(
    sandboxHint(
      { ...BWRAP, network: true },
      1,
      "connect: /run/user/1000/bus: No such file or directory",
    )!,
    /sockets/,
  );
});

Deno.test({
  name:
    "bwrapArgs: sockets hidden before the worktree is bound, guards after it, and it dies with replio",
  ignore: !bwrapUsable(),
  async fn() {
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_argv_" }));
    try {
      await Deno.mkdir(join(dir, ".git"));
      await Deno.mkdir(join(dir, ".replio"));
      await Deno.mkdir(join(dir, "vendor/lib/.git"), { recursive: true });
      const args = await bwrapArgs({ ...BWRAP, worktree: dir }, dir);
      const at = (...words: string[]) =>
        args.findIndex((_, i) => words.every((word, j) => args[i + j] === word));
      const worktree = at("--bind", dir, dir);
      assert.ok(at("--tmpfs", "/tmp") < worktree);
      assert.ok(at("--tmpfs", Deno.realPathSync("/run")) < worktree);
      assert.ok(at("--ro-bind", join(dir, ".git"), join(dir, ".git")) > worktree);
      assert.ok(at("--ro-bind", join(dir, ".replio"), join(dir, ".replio")) > worktree);
      assert.ok(
        at("--ro-bind-try", join(dir, "vendor/lib/.git"), join(dir, "vendor/lib/.git")) > worktree,
      );
      // Commands and MCP servers alike (both start from bwrapArgs) end when replio does.
      assert.deepEqual(args.slice(-5), [
        "--unshare-net",
        "--die-with-parent",
        "--chdir",
        dir,
        "--",
      ]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
