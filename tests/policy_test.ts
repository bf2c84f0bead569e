/**
 * ToolPolicy, step by step in the precedence of spec/tools.md §Tool policy: name level →
 * category action (modes merged over the base) → Deno permission layer → permission_fn →
 * worktree escalation, then the headless answer and the audit through the invoke pipeline.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { ConfigError, type ConfigKey } from "../src/config/mod.ts";
import { defineTool, type PluginTool } from "../src/plugins/api.ts";
import {
  type Action,
  createToolContext,
  type HeadlessAnswer,
  invokeTool,
  type PermissionContext,
  type PermissionKey,
  type PermissionRecord,
  type Resolution,
  type Tool,
  type ToolArgs,
  ToolPolicy,
  ToolRegistry,
} from "../src/tools/mod.ts";
import type { ConfirmAnswer } from "../src/ui/events.ts";
import { configWith, RecordingSink, tempWorktree } from "./support/worktree.ts";

interface TestToolOptions {
  category?: Tool["category"];
  pathArg?: string;
  permissionFn?: (args: ToolArgs, ctx: PermissionContext) => Resolution | Action;
}

/** A throwaway tool with an optional `path` argument that answers "ran <name>". */
function testTool(name: string, permission: PermissionKey, options: TestToolOptions = {}) {
  return defineTool({
    name,
    description: `Test tool ${name}`,
    parameters: Type.Object({
      path: Type.Optional(Type.String({ description: "A path" })),
      target: Type.Optional(Type.String({ description: "Anything" })),
    }),
    category: options.category ?? "read",
    permission,
    ...(options.pathArg ? { pathArg: options.pathArg } : {}),
    ...(options.permissionFn ? { permissionFn: options.permissionFn } : {}),
  }, () => `ran ${name}`);
}

function registryOf(...tools: PluginTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  for (const { spec, handler } of tools) registry.register(spec, handler);
  return registry;
}

function toolOf(plugin: PluginTool): Tool {
  return registryOf(plugin).lookup(plugin.spec.name)!.tool;
}

const READER = toolOf(testTool("reader", "read", { pathArg: "path" }));
const LISTER = toolOf(testTool("lister", "list", { pathArg: "path" }));
const WRITER = toolOf(testTool("writer", "edit", { category: "write", pathArg: "path" }));
const RUNNER = toolOf(testTool("runner", "bash", { category: "exec", pathArg: "path" }));
const FETCHER = toolOf(testTool("fetcher", "web"));
const ASKER = toolOf(testTool("asker", "ask", { category: "ask" }));

interface StaticCase {
  name: string;
  config?: Partial<Record<ConfigKey, unknown>>;
  mode?: string;
  tool: Tool;
  expected: Resolution;
}

const STATIC_CASES: StaticCase[] = [
  // 1. Name level.
  {
    name: "tools.deny denies a tool its category allows",
    config: { "tools.deny": ["reader"] },
    tool: READER,
    expected: { action: "deny", reason: "tools.deny" },
  },
  {
    name: "tools.deny wins over tools.allow",
    config: { "tools.deny": ["reader"], "tools.allow": ["reader"] },
    tool: READER,
    expected: { action: "deny", reason: "tools.deny" },
  },
  {
    name: "a non-empty tools.allow denies every other tool",
    config: { "tools.allow": ["lister"] },
    tool: READER,
    expected: { action: "deny", reason: "tools.allow" },
  },
  {
    name: "a tool in tools.allow goes on to its category action",
    config: { "tools.allow": ["runner"] },
    tool: RUNNER,
    expected: { action: "ask", reason: "tool_permission.bash" },
  },
  {
    name: "tools.allow does not lift a category deny",
    config: { "tools.allow": ["writer"], "tool_permission.edit": "deny" },
    tool: WRITER,
    expected: { action: "deny", reason: "tool_permission.edit" },
  },
  {
    name: "an empty tools.allow allows by category",
    config: { "tools.allow": [] },
    tool: READER,
    expected: { action: "allow", reason: "tool_permission.read" },
  },
  // 2. Category action from tool_permission.
  {
    name: "read defaults to allow",
    tool: READER,
    expected: { action: "allow", reason: "tool_permission.read" },
  },
  {
    name: "bash defaults to ask",
    tool: RUNNER,
    expected: { action: "ask", reason: "tool_permission.bash" },
  },
  {
    name: "ask defaults to allow",
    tool: ASKER,
    expected: { action: "allow", reason: "tool_permission.ask" },
  },
  {
    name: "a configured category action applies",
    config: { "tool_permission.list": "ask" },
    tool: LISTER,
    expected: { action: "ask", reason: "tool_permission.list" },
  },
  {
    name: "a category deny denies",
    config: { "tool_permission.web": "deny" },
    tool: FETCHER,
    expected: { action: "deny", reason: "tool_permission.web" },
  },
  // Modes merged over the base.
  {
    name: "plan mode denies edit",
    mode: "plan",
    tool: WRITER,
    expected: { action: "deny", reason: "mode plan" },
  },
  {
    name: "plan mode denies bash",
    mode: "plan",
    tool: RUNNER,
    expected: { action: "deny", reason: "mode plan" },
  },
  {
    name: "plan mode keeps the base action of other keys",
    mode: "plan",
    config: { "tool_permission.read": "ask" },
    tool: READER,
    expected: { action: "ask", reason: "tool_permission.read" },
  },
  {
    name: "the mode key named in config applies when no mode is passed",
    config: { mode: "plan" },
    tool: WRITER,
    expected: { action: "deny", reason: "mode plan" },
  },
  {
    name: "a mode's tool_permission wins per key over the base",
    mode: "review",
    config: {
      "tool_permission.edit": "deny",
      modes: { review: { tool_permission: { edit: "ask" } } },
    },
    tool: WRITER,
    expected: { action: "ask", reason: "mode review" },
  },
  {
    name: "a mode's tools.deny appends to the base list (base entry)",
    mode: "review",
    config: { "tools.deny": ["reader"], modes: { review: { tools: { deny: ["lister"] } } } },
    tool: READER,
    expected: { action: "deny", reason: "tools.deny" },
  },
  {
    name: "a mode's tools.deny appends to the base list (mode entry)",
    mode: "review",
    config: { "tools.deny": ["reader"], modes: { review: { tools: { deny: ["lister"] } } } },
    tool: LISTER,
    expected: { action: "deny", reason: "tools.deny" },
  },
  {
    name: "a mode's non-empty tools.allow replaces the base allowlist (dropped tool)",
    mode: "review",
    config: { "tools.allow": ["reader"], modes: { review: { tools: { allow: ["lister"] } } } },
    tool: READER,
    expected: { action: "deny", reason: "tools.allow" },
  },
  {
    name: "a mode's non-empty tools.allow replaces the base allowlist (added tool)",
    mode: "review",
    config: { "tools.allow": ["reader"], modes: { review: { tools: { allow: ["lister"] } } } },
    tool: LISTER,
    expected: { action: "allow", reason: "tool_permission.list" },
  },
  {
    name: "a mode's empty tools.allow keeps the base allowlist",
    mode: "review",
    config: { "tools.allow": ["reader"], modes: { review: { tools: { allow: [] } } } },
    tool: LISTER,
    expected: { action: "deny", reason: "tools.allow" },
  },
  {
    // Its settings replace the built-in ones, but plan stays read-only: a write is still denied.
    name: "a configured mode named plan replaces the built-in one, and stays read-only",
    mode: "plan",
    config: { modes: { plan: { tool_permission: { bash: "ask" } } } },
    tool: WRITER,
    expected: { action: "deny", reason: "mode plan is read-only and permission edit writes files" },
  },
];

for (const { name, config, mode, tool, expected } of STATIC_CASES) {
  Deno.test(`ToolPolicy.resolveStatic: ${name}`, async () => {
    const policy = new ToolPolicy({ config: await configWith(config), worktree: "/w", mode });
    assert.deepEqual(policy.resolveStatic(tool), expected);
    assert.equal(policy.isVisible(tool), expected.action !== "deny");
  });
}

Deno.test("ToolPolicy rejects an unknown mode naming the known ones", async () => {
  const config = await configWith({ modes: { review: {} } });
  assert.throws(
    () => new ToolPolicy({ config, worktree: "/w", mode: "nope" }),
    new ConfigError(
      'Cannot use mode "nope": no such mode: use one of default, plan, sandboxed, accept-edits, review',
    ),
  );
});

// 3. The Deno permission layer: without the grant a tool is impossible, whatever policy says.
const DENO_CASES: { tool: Tool; expected: Resolution }[] = [
  {
    tool: RUNNER,
    expected: {
      action: "deny",
      reason: "deno: needs --allow-run=setsid,bash",
      denoFlags: "--allow-run=setsid,bash",
    },
  },
  {
    tool: WRITER,
    expected: {
      action: "deny",
      reason: "deno: needs --allow-write=/w",
      denoFlags: "--allow-write=/w",
    },
  },
  {
    tool: FETCHER,
    expected: { action: "deny", reason: "deno: needs --allow-net", denoFlags: "--allow-net" },
  },
  { tool: READER, expected: { action: "allow", reason: "tool_permission.read" } },
  { tool: LISTER, expected: { action: "allow", reason: "tool_permission.list" } },
  { tool: ASKER, expected: { action: "allow", reason: "tool_permission.ask" } },
];

for (const { tool, expected } of DENO_CASES) {
  Deno.test({
    name:
      `ToolPolicy.resolveStatic: with read only, ${tool.permission} resolves ${expected.action}`,
    permissions: { read: true, env: true },
    async fn() {
      const policy = new ToolPolicy({ config: await configWith(), worktree: "/w" });
      assert.deepEqual(policy.resolveStatic(tool), expected);
    },
  });
}

Deno.test({
  name:
    "ToolPolicy.resolveStatic: a name-level or category deny keeps its own reason without the grant",
  permissions: { read: true, env: true },
  async fn() {
    const config = await configWith({ "tools.deny": ["runner"], "tool_permission.edit": "deny" });
    const policy = new ToolPolicy({ config, worktree: "/w" });
    assert.deepEqual(policy.resolveStatic(RUNNER), { action: "deny", reason: "tools.deny" });
    assert.deepEqual(policy.resolveStatic(WRITER), {
      action: "deny",
      reason: "tool_permission.edit",
    });
  },
});

Deno.test({
  name: "ToolPolicy.resolveStatic: the Deno layer only lowers (ask stays ask when granted)",
  // The key's default needs: bash runs commands through setsid (their own process group).
  permissions: { read: true, env: true, run: ["setsid", "bash"] },
  async fn() {
    const policy = new ToolPolicy({ config: await configWith(), worktree: "/w" });
    assert.deepEqual(policy.resolveStatic(RUNNER), {
      action: "ask",
      reason: "tool_permission.bash",
    });
  },
});

// 4. permission_fn refines a non-deny action, only with arguments.
Deno.test("ToolPolicy.resolve: permission_fn refines allow to ask and sees the base", async () => {
  const seen: PermissionContext[] = [];
  const tool = toolOf(testTool("picky", "read", {
    permissionFn: (args, ctx) => {
      seen.push(ctx);
      return args.target === "risky" ? "ask" : ctx.base.action;
    },
  }));
  const policy = new ToolPolicy({
    config: await configWith({ "tool_permission.bash_allow": ["ls"] }),
    worktree: "/w",
  });
  assert.deepEqual(await policy.resolve(tool, { target: "risky" }), {
    action: "ask",
    reason: "permission_fn",
  });
  assert.deepEqual(await policy.resolve(tool, { target: "fine" }), {
    action: "allow",
    reason: "permission_fn",
  });
  assert.deepEqual(seen[0]!.base, { action: "allow", reason: "tool_permission.read" });
  assert.deepEqual(seen[0]!.toolPermission.bash_allow, ["ls"]);
  assert.equal(seen[0]!.worktree, "/w");
});

Deno.test("ToolPolicy.resolve: permission_fn may return a resolution with its own reason", async () => {
  const tool = toolOf(testTool("typed", "ask", {
    permissionFn: () => ({ action: "deny", reason: "unknown agent type" }),
  }));
  const policy = new ToolPolicy({ config: await configWith(), worktree: "/w" });
  assert.deepEqual(await policy.resolve(tool, { target: "x" }), {
    action: "deny",
    reason: "unknown agent type",
  });
});

Deno.test("ToolPolicy.resolve: permission_fn is not consulted when the base action is deny", async () => {
  let calls = 0;
  const tool = toolOf(testTool("never", "web", {
    permissionFn: () => {
      calls++;
      return "allow";
    },
  }));
  const policy = new ToolPolicy({
    config: await configWith({ "tool_permission.web": "deny" }),
    worktree: "/w",
  });
  assert.deepEqual(await policy.resolve(tool, { target: "x" }), {
    action: "deny",
    reason: "tool_permission.web",
  });
  assert.equal(calls, 0);
});

Deno.test("ToolPolicy.resolveStatic: permission_fn is skipped without arguments, so the tool stays visible", async () => {
  let calls = 0;
  const tool = toolOf(testTool("hidden_deny", "ask", {
    permissionFn: () => {
      calls++;
      return "deny";
    },
  }));
  const policy = new ToolPolicy({ config: await configWith(), worktree: "/w" });
  assert.deepEqual(policy.resolveStatic(tool), { action: "allow", reason: "tool_permission.ask" });
  assert.equal(policy.isVisible(tool), true);
  assert.equal(calls, 0);
});

// 5. Worktree escalation: resolve ~, .. and symlinks first, then allow → ask outside.
interface ScopeCase {
  name: string;
  tool: Tool;
  /** The path argument; `{wt}` and `{out}` are replaced by the worktree and an outside dir. */
  path: string;
  config?: Partial<Record<ConfigKey, unknown>>;
  expected: (dirs: { wt: string; out: string; home: string }) => Resolution & { path?: string };
}

const SCOPE_CASES: ScopeCase[] = [
  {
    name: "a relative path inside stays allow",
    tool: READER,
    path: "src/a.txt",
    expected: ({ wt }) => ({
      action: "allow",
      reason: "tool_permission.read",
      path: join(wt, "src/a.txt"),
    }),
  },
  {
    name: "the worktree itself stays allow",
    tool: LISTER,
    path: ".",
    expected: ({ wt }) => ({ action: "allow", reason: "tool_permission.list", path: wt }),
  },
  {
    name: "an absolute path outside escalates to ask",
    tool: READER,
    path: "{out}/secret.txt",
    expected: ({ out }) => ({
      action: "ask",
      reason: "outside worktree",
      path: join(out, "secret.txt"),
    }),
  },
  {
    name: "a .. path climbing out escalates",
    tool: LISTER,
    path: "src/../../",
    expected: ({ wt }) => ({ action: "ask", reason: "outside worktree", path: join(wt, "..") }),
  },
  {
    name: "a .. path staying inside stays allow",
    tool: READER,
    path: "src/../a.txt",
    expected: ({ wt }) => ({
      action: "allow",
      reason: "tool_permission.read",
      path: join(wt, "a.txt"),
    }),
  },
  {
    name: "~ resolves to the home directory, outside",
    tool: READER,
    path: "~/notes.txt",
    expected: ({ home }) => ({
      action: "ask",
      reason: "outside worktree",
      path: join(home, "notes.txt"),
    }),
  },
  {
    name: "a symlink inside pointing out escalates on its target",
    tool: READER,
    path: "link_out/secret.txt",
    expected: ({ out }) => ({
      action: "ask",
      reason: "outside worktree",
      path: join(out, "secret.txt"),
    }),
  },
  {
    name: "a new file under a symlink pointing out escalates",
    tool: WRITER,
    path: "link_out/new/file.txt",
    expected: ({ out }) => ({
      action: "ask",
      reason: "outside worktree",
      path: join(out, "new/file.txt"),
    }),
  },
  {
    name: "a symlink pointing inside stays allow",
    tool: READER,
    path: "link_in",
    expected: ({ wt }) => ({
      action: "allow",
      reason: "tool_permission.read",
      path: join(wt, "src/a.txt"),
    }),
  },
  {
    name: "an edit tool outside escalates",
    tool: WRITER,
    path: "{out}/x.txt",
    expected: ({ out }) => ({
      action: "ask",
      reason: "outside worktree",
      path: join(out, "x.txt"),
    }),
  },
  {
    name: "an ask base stays ask with its own reason outside",
    tool: READER,
    path: "{out}/secret.txt",
    config: { "tool_permission.read": "ask" },
    expected: ({ out }) => ({
      action: "ask",
      reason: "tool_permission.read",
      path: join(out, "secret.txt"),
    }),
  },
  {
    name: "a deny base stays deny outside",
    tool: READER,
    path: "{out}/secret.txt",
    config: { "tools.deny": ["reader"] },
    expected: () => ({ action: "deny", reason: "tools.deny" }),
  },
  {
    name: "a bash tool is not judged on its path",
    tool: RUNNER,
    path: "{out}",
    config: { "tool_permission.bash": "allow" },
    expected: () => ({ action: "allow", reason: "tool_permission.bash" }),
  },
];

for (const { name, tool, path, config, expected } of SCOPE_CASES) {
  Deno.test(`ToolPolicy.resolve: worktree escalation: ${name}`, async () => {
    await using wt = await tempWorktree({ "src/a.txt": "a", "a.txt": "b" });
    await using outside = await tempWorktree({ "secret.txt": "s" });
    await Deno.symlink(outside.path, join(wt.path, "link_out"));
    await Deno.symlink(join(wt.path, "src/a.txt"), join(wt.path, "link_in"));
    const policy = new ToolPolicy({ config: await configWith(config), worktree: wt.path });
    const args = { path: path.replace("{wt}", wt.path).replace("{out}", outside.path) };
    const home = await Deno.realPath(Deno.env.get("HOME")!);
    assert.deepEqual(
      await policy.resolve(tool, args),
      expected({ wt: wt.path, out: outside.path, home }),
    );
  });
}

Deno.test("ToolPolicy.resolve: permission_fn's allow is still escalated outside the worktree", async () => {
  await using wt = await tempWorktree();
  const tool = toolOf(
    testTool("fn_reader", "read", { pathArg: "path", permissionFn: () => "allow" }),
  );
  const policy = new ToolPolicy({ config: await configWith(), worktree: wt.path });
  assert.deepEqual(await policy.resolve(tool, { path: "/" }), {
    action: "ask",
    reason: "outside worktree",
    path: "/",
  });
});

// 6. Outcomes: headless answers, the person's answer, and the audit record of each.
interface OutcomeCase {
  name: string;
  tool: PluginTool;
  args?: ToolArgs;
  config?: Partial<Record<ConfigKey, unknown>>;
  mode?: string;
  headless?: HeadlessAnswer;
  answer?: ConfirmAnswer;
  output: string;
  record: Omit<PermissionRecord, "ts" | "tool" | "permission">;
  confirmations: number;
}

const RUN = testTool("run_it", "bash", { category: "exec" });
const READ = testTool("read_it", "read", { pathArg: "path" });

const OUTCOME_CASES: OutcomeCase[] = [
  {
    name: "allow runs without asking",
    tool: READ,
    output: "ran read_it",
    record: { action: "allow", decision: "granted", reason: "tool_permission.read" },
    confirmations: 0,
  },
  {
    name: "headless ask is denied without --yes",
    tool: RUN,
    headless: "no",
    output:
      "Error: run_it needs confirmation (tool_permission.bash) and this headless run cannot ask: it was denied; continue without it (the operator can rerun with --yes)",
    record: { action: "ask", decision: "denied", reason: "tool_permission.bash; headless" },
    confirmations: 0,
  },
  {
    name: "headless ask is granted with --yes",
    tool: RUN,
    headless: "yes",
    output: "ran run_it",
    record: { action: "ask", decision: "granted", reason: "tool_permission.bash; headless --yes" },
    confirmations: 0,
  },
  {
    name: "--yes does not lift a deny",
    tool: RUN,
    headless: "yes",
    mode: "plan",
    output:
      "Error: run_it is denied by policy (mode plan): do not retry it; use another tool or approach",
    record: { action: "deny", decision: "denied", reason: "mode plan" },
    confirmations: 0,
  },
  {
    name: "headless outside the worktree is denied without --yes",
    tool: READ,
    args: { path: "/" },
    headless: "no",
    output:
      "Error: read_it needs confirmation (outside worktree) and this headless run cannot ask: it was denied; continue without it (the operator can rerun with --yes)",
    record: { action: "ask", decision: "denied", reason: "outside worktree; headless", path: "/" },
    confirmations: 0,
  },
  {
    name: "a person's yes grants",
    tool: RUN,
    answer: "yes",
    output: "ran run_it",
    record: { action: "ask", decision: "granted", reason: "tool_permission.bash" },
    confirmations: 1,
  },
  {
    name: "a person's no declines",
    tool: RUN,
    answer: "no",
    output:
      "Error: the user declined to run run_it: do not retry it; ask what they want instead or take another approach",
    record: { action: "ask", decision: "declined", reason: "tool_permission.bash" },
    confirmations: 1,
  },
  {
    name: "a person's cancel declines and cancels",
    tool: RUN,
    answer: "cancel",
    output: "Error: cancelled by the user",
    record: { action: "ask", decision: "declined", reason: "tool_permission.bash" },
    confirmations: 1,
  },
  {
    name: "a denied tool never reaches the person",
    tool: RUN,
    answer: "yes",
    config: { "tools.deny": ["run_it"] },
    output:
      "Error: run_it is denied by policy (tools.deny): do not retry it; use another tool or approach",
    record: { action: "deny", decision: "denied", reason: "tools.deny" },
    confirmations: 0,
  },
];

for (const c of OUTCOME_CASES) {
  Deno.test(`invokeTool: ${c.name}, recorded in the audit with its reason`, async () => {
    await using wt = await tempWorktree();
    const config = await configWith(c.config);
    const sink = new RecordingSink(c.answer ? [c.answer] : []);
    const audit: PermissionRecord[] = [];
    const outcome = await invokeTool({
      registry: registryOf(c.tool),
      policy: new ToolPolicy({ config, worktree: wt.path, mode: c.mode, headless: c.headless }),
      ctx: createToolContext({ config, worktree: wt.path, signal: new AbortController().signal }),
      sink,
      audit: (record) => audit.push(record),
    }, { id: "call_1", name: c.tool.spec.name, arguments: c.args ?? {} });
    assert.equal(outcome.output, c.output);
    assert.equal(outcome.cancelled, c.answer === "cancel");
    assert.equal(sink.confirmations.length, c.confirmations);
    assert.equal(audit.length, 1);
    const { ts, ...record } = audit[0]!;
    assert.match(ts, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(record, {
      call_id: "call_1",
      tool: c.tool.spec.name,
      permission: c.tool.spec.permission,
      ...c.record,
      // A tool without `isolation` is replio's own code, run in its process.
      isolation: "in-process",
    });
    const permission = sink.events.find((e) => e.type === "permission");
    assert.deepEqual(permission, {
      type: "permission",
      tool: c.tool.spec.name,
      action: c.record.action,
      decision: c.record.decision,
      reason: c.record.reason,
    });
  });
}
