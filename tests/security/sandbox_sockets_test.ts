/**
 * Issue 22, item 4: host unix sockets (docs/sandbox.md, "What a command cannot reach"). A daemon
 * on a socket in `$XDG_RUNTIME_DIR`, under `~` and in `/run` appends to a marker when asked; a
 * sandboxed command cannot reach it, and the control (`sandbox.mode: off`) can. Also: `replio
 * permissions` lists what a sandboxed command cannot reach.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bwrapUsable } from "../../src/plugins/sandbox_bwrap.ts";
import { waitUntil } from "../support/deadline.ts";
import { exists } from "../support/exists.ts";
import { runReplio } from "../support/replio_process.ts";
import { tempWorktree } from "../support/worktree.ts";
import {
  connectTo,
  git,
  OFF,
  outsideTmp,
  pinnedDenoDir,
  runCommand,
  startDaemon,
  trap,
} from "./_sandbox_edges.ts";

const ignore = !bwrapUsable();

for (
  const place of [
    { name: "$XDG_RUNTIME_DIR", socket: "bus" },
    { name: "a hidden folder of $HOME", socket: ".docker/run/docker.sock" },
  ]
) {
  Deno.test({
    name:
      `a daemon's socket in ${place.name} is out of a sandboxed command's reach; unsandboxed it is not`,
    ignore,
    async fn() {
      await using wt = await tempWorktree();
      await using t = await trap();
      await using home = await outsideTmp("replio_edges_home_");
      const socket = join(home.path, place.socket);
      await Deno.mkdir(join(socket, ".."), { recursive: true });
      const env = { ...pinnedDenoDir(), HOME: home.path, XDG_RUNTIME_DIR: home.path };
      await using _daemon = startDaemon(socket, t.marker);
      const output = await runCommand(wt, connectTo(socket), env);
      assert.match(output, /No such file or directory|Connection refused/);
      assert.deepEqual(await t.ran(), []);

      await wt.write(".xdg/replio/config.yaml", OFF);
      assert.equal(await runCommand(wt, connectTo(socket), env), "exit 0");
      // The daemon writes its mark after the client has gone: wait for it.
      await waitUntil(async () => (await t.ran()).length >= 1, "the daemon's mark (control)");
      assert.deepEqual(await t.ran(), ["ran"], "the control reaches the daemon");
    },
  });
}

/** Whether this process may make a socket in /run (root, as in CI). */
function canWriteRun(): boolean {
  try {
    Deno.mkdirSync(`/run/replio_probe_${Deno.pid}`);
    Deno.removeSync(`/run/replio_probe_${Deno.pid}`);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "a daemon's socket in /run is out of a sandboxed command's reach; unsandboxed it is not",
  ignore: ignore || !canWriteRun(),
  async fn() {
    await using wt = await tempWorktree();
    await using t = await trap();
    const socket = `/run/replio_edges_${crypto.randomUUID()}.sock`;
    await using _daemon = startDaemon(socket, t.marker);
    // The path clients use may be a link in /run to the socket's real place: hidden as well.
    await using elsewhere = await outsideTmp("replio_edges_real_");
    const real = join(elsewhere.path, "daemon.sock");
    await using _linked = startDaemon(real, t.marker);
    const link = `/run/replio_edges_${crypto.randomUUID()}.link`;
    await Deno.symlink(real, link);
    try {
      const both = `${connectTo(socket)}; ${connectTo(link)}`;
      const output = await runCommand(wt, both);
      assert.match(output, /No such file or directory[\s\S]*No such file or directory/);
      assert.deepEqual(await t.ran(), []);

      await wt.write(".xdg/replio/config.yaml", OFF);
      assert.equal(await runCommand(wt, both), "exit 0");
      await waitUntil(async () => (await t.ran()).length >= 2, "both daemons' marks (control)");
      assert.deepEqual(await t.ran(), ["ran", "ran"]);
    } finally {
      await Deno.remove(link);
    }
  },
});

/** Every entry under `dir` with its kind, mode and content: what a user would call the folder. */
Deno.test({
  name: "replio permissions lists what a sandboxed command cannot reach",
  ignore,
  async fn() {
    await using wt = await tempWorktree({ ".git/.keep": "" });
    await git(wt.path, "init", "-q", "vendor/lib");
    await using home = await outsideTmp("replio_edges_home_");
    const socket = join(home.path, ".docker/run/docker.sock");
    await Deno.mkdir(join(socket, ".."), { recursive: true });
    await using t = await trap();
    await using _daemon = startDaemon(socket, t.marker);
    const runtime = join(home.path, "runtime");
    await Deno.mkdir(runtime);
    const env = { ...pinnedDenoDir(), HOME: home.path, XDG_RUNTIME_DIR: runtime };
    const listed = await runReplio(["permissions", "--json"], { cwd: wt.path, env });
    assert.equal(listed.code, 0, listed.stderr);
    const { sandbox } = JSON.parse(listed.stdout);
    assert.equal(sandbox.isolation, "bwrap(net=off, write=worktree)");
    assert.deepEqual(sandbox.readOnly, [
      "everything outside the worktree",
      ".git",
      ".replio (missing: an empty stand-in while a command runs, so none can be made)",
      "vendor/lib/.git",
    ]);
    assert.ok(sandbox.hidden.includes("/tmp (private to each command)"), sandbox.hidden);
    assert.ok(sandbox.hidden.includes(runtime), sandbox.hidden);
    assert.ok(sandbox.sockets.includes(socket), sandbox.sockets);
    assert.match(sandbox.left.join("\n"), /sockets inside the worktree/);
    // Looking made nothing: no stand-in, and the daemon was not asked anything.
    assert.equal(await exists(join(wt.path, ".replio")), false);
    assert.deepEqual(await t.ran(), []);

    const text = await runReplio(["permissions"], { cwd: wt.path, env });
    assert.match(text.stdout, /^commands run in: bwrap\(net=off, write=worktree\)$/m);
    assert.match(text.stdout, /^ {2}sockets covered:\n {4}.*docker\.sock$/m);
  },
});
