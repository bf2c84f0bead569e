/**
 * Issue #22 item 7: an "always allow" rule never covers more than the person was shown. Each
 * attack accepts `a` on a harmless call, then tries a dangerous one the old rule covered; a
 * marker file shows whether it ran. The calls take the REPL's path: invokeTool with the real
 * registry, policy and session rules, and a sink answering the confirm prompts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import picomatch from "picomatch";
import { checkBashAllow } from "../../plugins/core-exec/bash_allow.ts";
import type { Plugin, ToolContext } from "../../src/plugins/api.ts";
import { createRegistry } from "../../src/plugins/load.ts";
import type { ConfigKey } from "../../src/config/mod.ts";
import {
  createToolContext,
  type InvokeOutcome,
  invokeTool,
  SessionApprovals,
  ToolPolicy,
} from "../../src/tools/mod.ts";
import type { ConfirmAnswer, ConfirmRequest } from "../../src/ui/events.ts";
import { exists } from "../support/exists.ts";
import { configWith, RecordingSink, type TempWorktree, tempWorktree } from "../support/worktree.ts";

/** A person at the prompt: answers in order, and every request they were shown. */
class Person extends RecordingSink {
  readonly requests: ConfirmRequest[] = [];
  constructor(private readonly script: ConfirmAnswer[]) {
    super();
  }
  override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.requests.push(request);
    return Promise.resolve(this.script.shift() ?? "no");
  }
}

/** One REPL session's tool calls: the same policy and "always" rules for every call. */
async function session(
  wt: TempWorktree,
  answers: ConfirmAnswer[],
  options: { config?: Partial<Record<ConfigKey, unknown>>; plugins?: Plugin[] } = {},
) {
  const config = await configWith(options.config);
  const approvals = new SessionApprovals();
  const policy = new ToolPolicy({ config, worktree: wt.path, approvals });
  const registry = createRegistry(options.plugins);
  const person = new Person(answers);
  let id = 0;
  const call = (name: string, args: Record<string, unknown>): Promise<InvokeOutcome> =>
    invokeTool({
      registry,
      policy,
      ctx: createToolContext({ config, worktree: wt.path, signal: new AbortController().signal }),
      sink: person,
    }, { id: `call_${++id}`, name, arguments: args });
  return { call, person, approvals };
}

Deno.test("always on find . -name x: find -delete is asked again, the exact repeat runs", async () => {
  await using wt = await tempWorktree({ "x": "", "keep/marker.txt": "keep\n" });
  const { call, person } = await session(wt, ["always", "no"]);
  await call("run_command", { command: "find . -name x" });
  assert.equal(
    person.requests[0]!.always,
    'run_command commands starting with "find", except with -delete, -exec, -execdir, -ok, ' +
      "-okdir, -fls, -fprint, -fprint0, -fprintf or a computed word",
  );
  // Control: the approved command again runs without a question.
  const repeat = await call("run_command", { command: "find . -name x" });
  assert.match(repeat.output, /^exit 0\n\.\/x$/m);
  assert.equal(person.requests.length, 1);
  for (const command of ["find keep -delete", "find keep -exec rm {} +"]) {
    const attack = await call("run_command", { command });
    assert.equal(attack.decision, "declined", command);
  }
  assert.equal(person.requests.length, 3, "each dangerous find was asked");
  assert.equal(await wt.read("keep/marker.txt"), "keep\n");
});

Deno.test("control: the rule find without its guard covers find -delete, which deletes", async () => {
  await using wt = await tempWorktree({ "keep/marker.txt": "keep\n" });
  // bash_allow's plain prefix check is what the rule was before: it covers the attack.
  assert.deepEqual(await checkBashAllow("find keep -delete", ["find"]), { allowed: true });
  const { call } = await session(wt, ["yes"]);
  assert.equal((await call("run_command", { command: "find keep -delete" })).isError, false);
  assert.equal(await exists(join(wt.path, "keep/marker.txt")), false);
});

Deno.test("always on bash scripts/check.sh: bash evil.sh is asked again, the exact repeat runs", async () => {
  await using wt = await tempWorktree({
    "scripts/check.sh": "touch checked.txt\n",
    "evil.sh": "touch evil.txt\n",
  });
  const { call, person } = await session(wt, ["always", "no"]);
  await call("run_command", { command: "bash scripts/check.sh" });
  assert.equal(person.requests[0]!.always, 'run_command exactly "bash scripts/check.sh"');
  await Deno.remove(join(wt.path, "checked.txt"));
  await call("run_command", { command: "bash scripts/check.sh" });
  assert.ok(await exists(join(wt.path, "checked.txt")), "the approved script ran again");
  assert.equal(person.requests.length, 1, "without a question");
  const attack = await call("run_command", { command: "bash evil.sh" });
  assert.equal(attack.decision, "declined");
  assert.equal(await exists(join(wt.path, "evil.txt")), false);
  // Control: approved by a person, the same call runs the script.
  const { call: approvedCall } = await session(wt, ["yes"]);
  await approvedCall("run_command", { command: "bash evil.sh" });
  assert.ok(await exists(join(wt.path, "evil.txt")), "bash evil.sh runs when approved");
});

Deno.test("a rule recorded before these limits (bash, find, git) never covers what runs code", async () => {
  await using wt = await tempWorktree({ "evil.sh": "touch evil.txt\n", "keep/m.txt": "m\n" });
  const { call, person, approvals } = await session(wt, []);
  for (const pattern of ["bash", "find", "git", "xargs", "env"]) {
    approvals.add({ tool: "run_command", kind: "prefix", pattern });
  }
  for (
    const command of [
      "bash evil.sh",
      "find keep -delete",
      "git -c alias.x='!touch evil.txt' x",
      "xargs touch evil.txt",
      "env touch evil.txt",
    ]
  ) {
    assert.equal((await call("run_command", { command })).decision, "declined", command);
  }
  assert.equal(person.requests.length, 5, "every one was asked");
  assert.equal(await exists(join(wt.path, "evil.txt")), false);
  assert.ok(await exists(join(wt.path, "keep/m.txt")));
  // Control: the old rules still cover the read-only forms.
  assert.equal((await call("run_command", { command: "git status --short" })).decision, "granted");
  assert.equal(person.requests.length, 5);
});

Deno.test("always on a file in a folder named *: the rule covers that folder, not every folder", async () => {
  await using wt = await tempWorktree({ "*/a.txt": "a\n", "src/.keep": "" });
  const config = { "tool_permission.edit": "ask" };
  const { call, person } = await session(wt, ["always", "no"], { config });
  await call("file_write", { path: "*/a.txt", content: "b\n" });
  assert.equal(person.requests[0]!.always, 'file_write on paths matching "*/**"');
  const attack = await call("file_write", { path: "src/pwned.txt", content: "x\n" });
  assert.equal(attack.decision, "declined");
  assert.equal(await exists(join(wt.path, "src/pwned.txt")), false);
  // Control: read as a glob, the same rule covers the attack.
  assert.equal(picomatch("*/**", { dot: true })("src/pwned.txt"), true);
});

Deno.test("control: always on a file in src/ covers src/ and below without asking", async () => {
  await using wt = await tempWorktree({ "src/a.txt": "a\n" });
  const config = { "tool_permission.edit": "ask" };
  const { call, person } = await session(wt, ["always"], { config });
  await call("file_write", { path: "src/a.txt", content: "b\n" });
  await call("file_write", { path: "src/deep/b.txt", content: "c\n" });
  assert.equal(await wt.read("src/deep/b.txt"), "c\n");
  assert.equal(person.requests.length, 1);
});

/** A tool as an MCP server may serve one: its key argument (`host`) is not what it runs. */
const REMOTE_SHELL: Plugin = {
  name: "test-remote",
  tools: [{
    spec: {
      name: "remote_shell",
      description: "Runs a command on a host",
      parameters: Type.Object({
        host: Type.String({ description: "Host name" }),
        command: Type.String({ description: "Command line" }),
      }),
      category: "mcp",
      permission: "mcp",
      keyArg: "host",
    },
    handler: async (args: { command: string }, ctx: ToolContext) => {
      const { code } = await new Deno.Command("bash", {
        args: ["-c", args.command],
        cwd: ctx.worktree,
      }).output();
      return `exit ${code}`;
    },
  }],
};

Deno.test("always on a tool call keyed by one argument covers only the same arguments", async () => {
  await using wt = await tempWorktree();
  const { call, person } = await session(wt, ["always", "no"], { plugins: [REMOTE_SHELL] });
  await call("remote_shell", { host: "local", command: "true" });
  assert.equal(
    person.requests[0]!.always,
    'remote_shell with "local" and the same other arguments',
  );
  // Control: the same call again runs without a question.
  assert.equal((await call("remote_shell", { command: "true", host: "local" })).output, "exit 0");
  assert.equal(person.requests.length, 1);
  const attack = await call("remote_shell", { host: "local", command: "touch M" });
  assert.equal(attack.decision, "declined");
  assert.equal(await exists(join(wt.path, "M")), false);
  // Control: approved by a person, that call writes the marker.
  const { call: approvedCall } = await session(wt, ["yes"], { plugins: [REMOTE_SHELL] });
  await approvedCall("remote_shell", { host: "local", command: "touch M" });
  assert.ok(await exists(join(wt.path, "M")));
});
