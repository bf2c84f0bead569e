/**
 * MCP servers end with replio: a stdio server runs in a process group of its own, and replio's
 * exit sends the group SIGTERM, then SIGKILL after a grace, so a server that ignores SIGTERM and
 * the child it started are gone too. The server is tests/support/mcp_stubborn_server.ts; the
 * control proves it really survives SIGTERM.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runReplio } from "./support/replio_process.ts";
import { isRunning } from "./support/process_state.ts";
import { tempWorktree } from "./support/worktree.ts";

const STUBBORN_SERVER = new URL("./support/mcp_stubborn_server.ts", import.meta.url).pathname;

/** Long enough that only a hang reaches it. */
const DEADLINE_MS = 60_000;

/**
 * Resolves once `check` holds, looking again every few milliseconds; fails after the deadline
 * naming `what` was awaited.
 */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${DEADLINE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function readPid(file: string): Promise<number> {
  return Number((await Deno.readTextFile(file)).trim());
}

async function exists(file: string): Promise<boolean> {
  try {
    await Deno.stat(file);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Whether `pid` ignores SIGTERM: bit 15 of the SigIgn mask in /proc. */
async function ignoresSigterm(pid: number): Promise<boolean> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const mask = BigInt(`0x${/^SigIgn:\s*([0-9a-f]+)$/m.exec(status)![1]}`);
  return (mask & (1n << 14n)) !== 0n;
}

/** Whether the child has run its `trap` and become `sleep` (its SIGTERM disposition is set). */
async function hasExecdSleep(pid: number): Promise<boolean> {
  const cmdline = await Deno.readTextFile(`/proc/${pid}/cmdline`);
  return cmdline.startsWith("sleep\0");
}

Deno.test("mcp_stubborn_server survives SIGTERM to its group, and so does its child (control)", async () => {
  await using wt = await tempWorktree();
  // Started as replio starts a server: in a group of its own, stdin open.
  const server = new Deno.Command("setsid", {
    args: [Deno.execPath(), "run", "-A", STUBBORN_SERVER, wt.path],
    stdin: "piped",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await until(
      "server.pid and child.pid written",
      async () =>
        await exists(join(wt.path, "server.pid")) && await exists(join(wt.path, "child.pid")),
    );
    const [serverPid, childPid] = [
      await readPid(join(wt.path, "server.pid")),
      await readPid(join(wt.path, "child.pid")),
    ];
    assert.equal(serverPid, server.pid, "setsid ran the server in place");
    await until("the child's exec of sleep", () => hasExecdSleep(childPid));

    Deno.kill(-server.pid, "SIGTERM");
    await until("the server's note of SIGTERM", () => exists(join(wt.path, "server.term")));
    assert.equal(await isRunning(serverPid), true, "the server outlived SIGTERM");
    assert.equal(await ignoresSigterm(childPid), true, "the child ignores SIGTERM");
    assert.equal(await isRunning(childPid), true, "the child outlived SIGTERM");
  } finally {
    Deno.kill(-server.pid, "SIGKILL");
    await server.stdin.close();
    await server.status;
  }
});

Deno.test("replio tools ends an MCP server that ignores SIGTERM, and its child, when it exits", async () => {
  await using wt = await tempWorktree({
    ".replio/config.yaml": JSON.stringify({
      mcp_servers: {
        stubborn: { command: Deno.execPath(), args: ["run", "-A", STUBBORN_SERVER, "."] },
      },
      // Waits until the server is up: its pids are written by then. It may start as slowly as a
      // busy machine makes it (the default connect timeout is 10 s).
      mcp_startup_wait: 60,
      mcp_connect_timeout: 60,
    }),
  });
  const listed = await runReplio(["tools", "--json", "--trust"], { cwd: wt.path });
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(JSON.parse(listed.stdout).mcp_servers, [
    { name: "stubborn", state: "ready", tools: 1 },
  ]);
  const serverPid = await readPid(join(wt.path, "server.pid"));
  const childPid = await readPid(join(wt.path, "child.pid"));
  await until(`the server (pid ${serverPid}) gone`, async () => !(await isRunning(serverPid)));
  await until(`its child (pid ${childPid}) gone`, async () => !(await isRunning(childPid)));
});
