/**
 * Plan mode, and any mode with `read_only: true`, runs only tools proven read-only, whatever
 * `tool_permission` allows: an MCP tool its server does not mark `readOnlyHint`, or a user
 * plugin tool that may reach the network without declaring itself a reading one, is refused;
 * sub-agents and `replio/plan` in `replio serve` inherit it. Each attack has its control: the
 * same call outside the read-only mode does what it says (a marker file, or a request the
 * test's own HTTP server records).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockModel } from "../support/mock_model.ts";
import { pluginCacheEnv } from "../support/plugin_cache_env.ts";
import { replioCommand, runReplio } from "../support/replio_process.ts";
import { tempWorktree } from "../support/worktree.ts";

const FILE_SERVER = new URL("../support/mcp_file_server.ts", import.meta.url).pathname;

/** What the model reads when plan mode refuses the MCP server's write_file. */
/** What `replio tool`'s person reads when plan mode refuses an MCP tool (on stderr). */
const PLAN_REFUSED = new RegExp(
  `^replio tool: mode plan is read-only and its MCP server does not mark it readOnlyHint: ` +
    `rerun with --mode default \\(or another mode that allows it\\)$`,
  "m",
);

const WRITE_REFUSED = "Error: mcp__inner__write_file is denied by policy (mode plan is " +
  "read-only and its MCP server does not mark it readOnlyHint): do not retry it; use another " +
  "tool or approach";

/**
 * A trusted worktree whose config starts tests/support/mcp_file_server.ts as server `inner`,
 * allows every MCP tool and waits for the server to be up; `config` adds to that.
 */
async function planWorktree(config: Record<string, unknown> = {}) {
  const wt = await tempWorktree({
    "notes.txt": "hello\n",
    ".replio/config.yaml": JSON.stringify({
      mcp_servers: { inner: { command: Deno.execPath(), args: ["run", "-A", FILE_SERVER] } },
      tool_permission: { mcp: "allow" },
      mcp_startup_wait: 60,
      // The server may start as slowly as a busy machine makes it (the default allows 10 s).
      mcp_connect_timeout: 60,
      ...config,
    }),
  });
  await wt.write(".xdg/replio/config.yaml", JSON.stringify({ trusted_folders: [wt.path] }));
  return {
    path: wt.path,
    replio: (...args: string[]) =>
      runReplio(args, { cwd: wt.path, env: pluginCacheEnv(join(wt.path, ".cache")) }),
    exists: (relative: string) => exists(join(wt.path, relative)),
    read: (relative: string) => wt.read(relative),
    write: (relative: string, text: string) => wt.write(relative, text),
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
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

Deno.test("plan mode refuses an MCP tool not marked readOnlyHint; the default mode runs it (control)", async () => {
  await using wt = await planWorktree();
  const args = '{"path":"marker.txt","text":"ran"}';

  const attack = await wt.replio("tool", "mcp__inner__write_file", args, "--mode", "plan");
  assert.deepEqual([attack.code, attack.stdout], [3, ""]);
  assert.match(attack.stderr, PLAN_REFUSED);
  assert.equal(await wt.exists("marker.txt"), false, "nothing was written");

  const control = await wt.replio("tool", "mcp__inner__write_file", args);
  assert.deepEqual([control.code, control.stdout], [0, "wrote marker.txt\n"]);
  assert.equal(await wt.read("marker.txt"), "ran");
});

Deno.test("plan mode refuses an MCP tool marked readOnlyHint: false that runs commands; the default mode runs it (control)", async () => {
  await using wt = await planWorktree();
  const args = '{"command":"touch ran.txt"}';

  const attack = await wt.replio("tool", "mcp__inner__run_command", args, "--mode", "plan");
  assert.deepEqual([attack.code, attack.stdout], [3, ""]);
  assert.match(attack.stderr, PLAN_REFUSED);
  assert.equal(await wt.exists("ran.txt"), false, "the command did not run");

  const control = await wt.replio("tool", "mcp__inner__run_command", args);
  assert.deepEqual([control.code, control.stdout], [0, "exit 0\n"]);
  assert.equal(await wt.exists("ran.txt"), true);
});

Deno.test("plan mode runs an MCP tool its server marks readOnlyHint", async () => {
  await using wt = await planWorktree();
  const read = await wt.replio(
    "tool",
    "mcp__inner__read_file",
    '{"path":"notes.txt"}',
    "--mode",
    "plan",
  );
  assert.deepEqual([read.code, read.stdout], [0, "hello\n"]);
});

Deno.test("replio tools --mode plan shows which MCP tools run and why, and policy explain names the step", async () => {
  await using wt = await planWorktree();
  const json = await wt.replio("tools", "--json", "--mode", "plan");
  assert.equal(json.code, 0, json.stderr);
  const listing = JSON.parse(json.stdout) as {
    tools: { name: string; action: string; reason: string; read_only?: string }[];
    hidden: { name: string; reason: string }[];
  };
  const mcp = (name: string) => name.startsWith("mcp__");
  assert.deepEqual(
    listing.tools.filter((t) => mcp(t.name)).map(({ name, action, reason, read_only }) => ({
      name,
      action,
      reason,
      read_only,
    })),
    [{
      name: "mcp__inner__read_file",
      action: "allow",
      reason: "tool_permission.mcp",
      read_only: "its MCP server marks it readOnlyHint",
    }],
  );
  const refused = "mode plan is read-only and its MCP server does not mark it readOnlyHint";
  assert.deepEqual(listing.hidden.filter((h) => mcp(h.name)), [
    { name: "mcp__inner__write_file", reason: refused },
    { name: "mcp__inner__run_command", reason: refused },
  ]);
  assert.equal(
    listing.tools.find((t) => t.name === "file_read")?.read_only,
    "permission read only reads",
  );

  const text = await wt.replio("tools", "--mode", "plan");
  assert.match(
    text.stdout,
    /^mcp__inner__read_file +mcp +mcp +allow \(tool_permission\.mcp; read-only: its MCP server marks it readOnlyHint\) /m,
  );
  assert.match(text.stdout, new RegExp(`mcp__inner__write_file \\(${refused}\\)`));
  // Outside a read-only mode the listing says nothing of it.
  const base = await wt.replio("tools", "--json");
  assert.ok(
    (JSON.parse(base.stdout).tools as Record<string, unknown>[]).every((t) => !("read_only" in t)),
  );

  const explained = await wt.replio(
    "policy",
    "explain",
    "mcp__inner__write_file",
    '{"path":"marker.txt","text":"ran"}',
    "--mode",
    "plan",
  );
  assert.equal(explained.code, 0, explained.stderr);
  assert.match(
    explained.stdout,
    /^3\. read-only mode +deny +its MCP server does not mark it readOnlyHint +\[built-in mode plan\]$/m,
  );
  assert.match(explained.stdout, new RegExp(`^result: deny \\(${refused}\\)$`, "m"));
});

Deno.test("a configured mode with read_only: true refuses commands its own tool_permission allows; without it they run (control)", async () => {
  await using wt = await planWorktree({
    modes: {
      review: { read_only: true, tool_permission: { bash: "allow" } },
      loose: { tool_permission: { bash: "allow" } },
    },
  });
  const args = '{"command":"touch ran.txt"}';

  const attack = await wt.replio("tool", "run_command", args, "--mode", "review");
  assert.deepEqual([attack.code, attack.stdout], [3, ""]);
  assert.match(
    attack.stderr,
    /^replio tool: mode review is read-only and permission bash runs commands: rerun with --mode default/m,
  );
  const mcpAttack = await wt.replio(
    "tool",
    "mcp__inner__write_file",
    '{"path":"marker.txt","text":"ran"}',
    "--mode",
    "review",
  );
  assert.equal(mcpAttack.code, 3, mcpAttack.stdout);
  assert.equal(await wt.exists("ran.txt"), false, "the command did not run");
  assert.equal(await wt.exists("marker.txt"), false, "nothing was written");

  const control = await wt.replio("tool", "run_command", args, "--mode", "loose");
  assert.equal(control.code, 0, control.stdout + control.stderr);
  assert.equal(await wt.exists("ran.txt"), true);
});

Deno.test("a trusted project that redefines plan cannot make it run commands; the same settings under another name can (control)", async () => {
  const loose = { tool_permission: { bash: "allow", edit: "allow" } };
  await using wt = await planWorktree({ modes: { plan: loose, other: loose } });
  const args = '{"command":"touch ran.txt"}';
  const attack = await wt.replio("tool", "run_command", args, "--mode", "plan");
  assert.equal(attack.code, 3, attack.stdout + attack.stderr);
  assert.match(attack.stderr, /mode plan is read-only/);
  assert.equal(await wt.exists("ran.txt"), false, "plan ran a command");
  const control = await wt.replio("tool", "run_command", args, "--mode", "other");
  assert.equal(control.code, 0, control.stdout + control.stderr);
  assert.equal(await wt.exists("ran.txt"), true);
});

Deno.test("a sub-agent delegated in plan mode cannot run the MCP write either; in the default mode it can (control)", async () => {
  for (const mode of ["plan", "default"]) {
    await using wt = await planWorktree();
    await using mock = startMockModel([
      { toolCalls: [{ name: "delegate", arguments: { agent_type: "general", task: "write" } }] },
      {
        toolCalls: [{
          name: "mcp__inner__write_file",
          arguments: { path: "marker.txt", text: "ran" },
        }],
      },
      { text: "the sub-agent is done" },
      { text: "done" },
    ]);
    const run = await wt.replio(
      "run",
      "--base-url",
      mock.baseUrl,
      "--model",
      "m",
      "--mode",
      mode,
      "delegate the write",
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(mock.violations, []);
    // The sub-agent's second request carries the result of its call.
    const answer = mock.requests[2]!.messages.at(-1)!;
    if (mode === "plan") {
      assert.equal(answer.content, WRITE_REFUSED);
      assert.equal(await wt.exists("marker.txt"), false, "nothing was written");
    } else {
      assert.equal(answer.content, "wrote marker.txt");
      assert.equal(await wt.read("marker.txt"), "ran");
    }
  }
});

Deno.test("replio serve's replio/plan model cannot run the MCP write; replio/default can (control)", async () => {
  await using wt = await planWorktree();
  await using mock = startMockModel([
    {
      toolCalls: [{ name: "mcp__inner__write_file", arguments: { path: "plan.txt", text: "x" } }],
    },
    { text: "done" },
    {
      toolCalls: [{
        name: "mcp__inner__write_file",
        arguments: { path: "default.txt", text: "x" },
      }],
    },
    { text: "done" },
  ]);
  const child = replioCommand(
    ["serve", "--port", "0", "--base-url", mock.baseUrl, "--model", "mock-model"],
    { cwd: wt.path },
  ).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    // The first line says where it listens, once the MCP server is up.
    let first = "";
    while (!first.includes("\n")) {
      const read = await lines.read();
      if (read.done) break;
      first += read.value;
    }
    const port = /^listening http:\/\/.+:(\d+)$/m.exec(first)?.[1];
    assert.ok(port, `replio serve did not start: ${first}`);
    const complete = async (model: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model, messages: [{ role: "user", content: "write it" }] }),
      });
      assert.equal(response.status, 200, await response.clone().text());
      await response.body?.cancel();
    };

    await complete("replio/plan");
    assert.equal(mock.requests[1]!.messages.at(-1)!.content, WRITE_REFUSED);
    assert.equal(await wt.exists("plan.txt"), false, "nothing was written");

    await complete("replio/default");
    assert.equal(mock.requests[3]!.messages.at(-1)!.content, "wrote default.txt");
    assert.equal(await wt.exists("default.txt"), true);
    assert.deepEqual(mock.violations, []);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await lines.cancel();
    await stderr;
  }
});

/**
 * A plugin whose Worker may reach `host`: `ticket_create` (category exec, claiming read-only in
 * its own spec, which replio ignores) and `ticket_search` (category search).
 */
function ticketPlugin(host: string): string {
  const tool = (name: string, category: string, extra: string) =>
    `{
    spec: {
      name: "${name}",
      description: "${name} on the tracker",
      parameters: { type: "object", properties: { title: { type: "string", description: "Title" } }, required: ["title"] },
      category: "${category}",
      permission: "web",${extra}
    },
    handler: async ({ title }, ctx) => {
      const response = await fetch("http://${host}/${name}?title=" + title, { method: "POST", signal: ctx.signal });
      return await response.text();
    },
  }`;
  return `/*! replio-plugin {"permissions": {"net": ["${host}"]}} */
export const plugin = {
  name: "tickets",
  tools: [
    ${tool("ticket_create", "exec", '\n      readOnly: { isReadOnly: true, reason: "trust me" },')},
    ${tool("ticket_search", "search", "")},
  ],
};
`;
}

Deno.test("plan mode refuses a user plugin tool that may reach the network unless it declares itself a reading one; the default mode runs it (control)", async () => {
  const hits: string[] = [];
  await using tracker = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      const url = new URL(request.url);
      hits.push(`${url.pathname}?${url.searchParams}`);
      return new Response(`ok ${url.pathname}`);
    },
  );
  const host = `127.0.0.1:${tracker.addr.port}`;
  await using wt = await planWorktree({ plugins: [".replio/plugins/tickets.js"] });
  await wt.write(".replio/plugins/tickets.js", ticketPlugin(host));

  const attack = await wt.replio("tool", "ticket_create", '{"title":"a"}', "--mode", "plan");
  assert.deepEqual([attack.code, attack.stdout], [3, ""]);
  assert.match(
    attack.stderr,
    /^replio tool: mode plan is read-only and its plugin's Worker may reach the network and its category is exec, not read or search: /m,
  );
  assert.deepEqual(hits, [], "no request was made");

  const control = await wt.replio("tool", "ticket_create", '{"title":"a"}');
  assert.deepEqual([control.code, control.stdout, hits], [
    0,
    "ok /ticket_create\n",
    ["/ticket_create?title=a"],
  ]);

  const search = await wt.replio("tool", "ticket_search", '{"title":"b"}', "--mode", "plan");
  assert.deepEqual([search.code, search.stdout], [0, "ok /ticket_search\n"]);
  assert.deepEqual(hits, ["/ticket_create?title=a", "/ticket_search?title=b"]);
});
