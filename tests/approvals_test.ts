import assert from "node:assert/strict";
import { join } from "node:path";
import { createRegistry } from "../src/plugins/load.ts";
import { createToolContext, invokeTool, SessionApprovals, ToolPolicy } from "../src/tools/mod.ts";
import type { ConfirmAnswer, ConfirmRequest } from "../src/ui/events.ts";
import { configWith, RecordingSink, tempWorktree } from "./support/worktree.ts";

const WORKTREE = "/w";
const registry = createRegistry();
const tool = (name: string) => registry.lookup(name)!.tool;

Deno.test("SessionApprovals offers a command prefix that never covers a chained command", async () => {
  const approvals = new SessionApprovals();
  const run = tool("run_command");
  const rule = await approvals.propose(run, { command: "git log -n 3" }, undefined, WORKTREE);
  assert.deepEqual(rule, {
    tool: "run_command",
    kind: "prefix",
    pattern: "git log",
    scope: 'commands starting with "git log", except with --output or a computed word',
  });
  approvals.add(rule!);
  assert.deepEqual(await approvals.match(run, { command: "git log" }, undefined, WORKTREE), rule);
  for (
    const command of ["git log; rm -rf ~", "git logs", "git push", "git log && curl x"]
  ) {
    assert.equal(await approvals.match(run, { command }, undefined, WORKTREE), null, command);
  }
  // A chained command, or a program that runs what its arguments name, gets only itself.
  for (const command of ["ls && rm x", "npm test -- --watch"]) {
    assert.deepEqual(await approvals.propose(run, { command }, undefined, WORKTREE), {
      tool: "run_command",
      kind: "prefix",
      pattern: command,
      scope: `exactly "${command}"`,
    });
  }
});

Deno.test("SessionApprovals scopes a path tool to the file's folder inside the worktree", async () => {
  const approvals = new SessionApprovals();
  const write = tool("file_write");
  const rule = await approvals.propose(write, {}, join(WORKTREE, "src/ui/a.ts"), WORKTREE);
  assert.deepEqual(rule, { tool: "file_write", kind: "glob", pattern: "src/ui/**" });
  approvals.add(rule!);
  const at = (path: string) => approvals.match(write, {}, join(WORKTREE, path), WORKTREE);
  assert.deepEqual(await at("src/ui/deep/b.ts"), rule);
  assert.equal(await at("src/c.ts"), null);
  assert.equal(await at("../elsewhere/src/ui/x.ts"), null);
  assert.equal(await approvals.propose(write, {}, "/elsewhere/a.ts", WORKTREE), null);
  assert.equal(
    await approvals.propose(tool("git_commit"), { message: "m" }, undefined, WORKTREE),
    null,
  );
});

Deno.test("invokeTool offers always and edit at a confirm, and remembers an accepted rule", async () => {
  await using wt = await tempWorktree({ "src/a.txt": "a\n" });
  const config = await configWith({ "tool_permission.edit": "ask", "tool_permission.bash": "ask" });
  const approvals = new SessionApprovals();
  const policy = new ToolPolicy({ config, worktree: wt.path, approvals });
  const requests: ConfirmRequest[] = [];
  const answers: ConfirmAnswer[] = ["always", "no"];
  const sink = new (class extends RecordingSink {
    override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
      requests.push(request);
      return Promise.resolve(answers.shift() ?? "no");
    }
  })();
  const call = (name: string, args: Record<string, unknown>) =>
    invokeTool({
      registry,
      policy,
      ctx: createToolContext({ config, worktree: wt.path, signal: new AbortController().signal }),
      sink,
    }, { id: "c", name, arguments: args });
  await call("file_write", { path: "src/b.txt", content: "b\n" });
  await call("file_write", { path: "src/c.txt", content: "c\n" });
  await call("run_command", { command: "ls -a" });
  assert.deepEqual(
    requests.map((r) => ({ tool: r.tool, always: r.always, editable: r.editable })),
    [
      // A path is never offered for editing: the policy judged that path.
      { tool: "file_write", always: 'file_write on paths matching "src/**"', editable: undefined },
      { tool: "run_command", always: 'run_command commands starting with "ls"', editable: "ls -a" },
    ],
  );
  assert.equal(await wt.read("src/c.txt"), "c\n");
});

Deno.test("invokeTool offers no always for an escalated ask (outside the worktree)", async () => {
  await using wt = await tempWorktree();
  await using outside = await tempWorktree({ "secret.txt": "s\n" });
  const config = await configWith();
  const policy = new ToolPolicy({ config, worktree: wt.path, approvals: new SessionApprovals() });
  const requests: ConfirmRequest[] = [];
  const sink = new (class extends RecordingSink {
    override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
      requests.push(request);
      return Promise.resolve("yes");
    }
  })();
  await invokeTool({
    registry,
    policy,
    ctx: createToolContext({ config, worktree: wt.path, signal: new AbortController().signal }),
    sink,
  }, { id: "c", name: "file_read", arguments: { path: join(outside.path, "secret.txt") } });
  assert.deepEqual(requests.map((r) => [r.reason, r.always]), [["outside worktree", undefined]]);
});
