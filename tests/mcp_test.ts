/**
 * MCP both ways, as real processes: `replio mcp` driven by the SDK's client over stdio, and
 * an MCP server (tests/support/mcp_echo_server.ts) configured in `mcp_servers` whose tools
 * `replio tools` and `replio tool` see through the registry and policy.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadMcpSdk } from "../src/mcp/mod.ts";
import { MAIN, runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const ECHO_SERVER = new URL("./support/mcp_echo_server.ts", import.meta.url).pathname;

/** A worktree with its own global config folder, so the user's settings never leak in. */
async function mcpWorktree(files: Record<string, string>) {
  const wt = await tempWorktree(files);
  const xdg = join(wt.path, ".xdg");
  // HOME stays (Deno's module cache lives under it); the rest is the test's own.
  const env = { HOME: Deno.env.get("HOME") ?? "", XDG_CONFIG_HOME: xdg, NO_COLOR: "1" };
  return {
    path: wt.path,
    env,
    /** Runs replio in the worktree and collects its output. */
    async replio(...args: string[]) {
      return await runReplio(args, { cwd: wt.path, env });
    },
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
}

Deno.test("replio mcp serves the policy's tools and runs calls headless", async () => {
  await using wt = await mcpWorktree({ "a.txt": "hello\n" });
  const { Client, StdioClientTransport } = await loadMcpSdk();
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "--no-prompt", "-A", MAIN, "mcp", "--mode", "plan"],
      cwd: wt.path,
      env: wt.env,
      stderr: "pipe",
    }),
  );
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes("file_read"), `file_read is listed: ${names.join(", ")}`);
    assert.ok(!names.includes("run_command"), "run_command is hidden in plan mode");
    const fileRead = tools.find((t) => t.name === "file_read")!;
    assert.equal(fileRead.inputSchema.type, "object");
    assert.ok(fileRead.inputSchema.properties && "path" in fileRead.inputSchema.properties);

    assert.deepEqual(await client.callTool({ name: "file_read", arguments: { path: "a.txt" } }), {
      content: [{ type: "text", text: "# a.txt - 1 line, 6 chars\n1\thello" }],
      isError: false,
    });
    assert.deepEqual(
      await client.callTool({ name: "run_command", arguments: { command: "ls" } }),
      {
        content: [{
          type: "text",
          text:
            "Error: run_command is denied by policy (mode plan): do not retry it; use another tool or approach",
        }],
        isError: true,
      },
    );
  } finally {
    await client.close();
  }
});

Deno.test("mcp_servers registers each server tool as mcp__<server>__<tool> behind tool_permission.mcp", async () => {
  await using wt = await mcpWorktree({
    ".replio/config.yaml": JSON.stringify({
      mcp_servers: {
        echo: { command: Deno.execPath(), args: ["run", "-A", ECHO_SERVER] },
        missing: { command: "replio-no-such-mcp-server" },
      },
      // replio tools lists the servers that started within mcp_startup_wait (default 1 s): a
      // busy machine takes longer to start the echo server, never a minute.
      mcp_startup_wait: 60,
      mcp_connect_timeout: 60,
    }),
  });

  // The servers come from the worktree's own config: trusted for these runs.
  const tools = await wt.replio("tools", "--json", "--trust");
  assert.equal(tools.code, 0);
  assert.equal(
    tools.stderr,
    `replio: Cannot start MCP server "missing" (continuing without its tools): command ` +
      `"replio-no-such-mcp-server" not found: install it or fix mcp_servers.missing.command ` +
      "(`replio config get mcp_servers --show-origin` shows the file)\n",
  );
  const listed = (JSON.parse(tools.stdout).tools as { name: string }[])
    .filter((t) => t.name.startsWith("mcp__"));
  assert.deepEqual(
    listed.map(({ name, category, permission, action, reason }: Record<string, unknown>) => ({
      name,
      category,
      permission,
      action,
      reason,
    })),
    [
      {
        name: "mcp__echo__echo",
        category: "mcp",
        permission: "mcp",
        action: "ask",
        reason: "tool_permission.mcp",
      },
      {
        name: "mcp__echo__add",
        category: "mcp",
        permission: "mcp",
        action: "ask",
        reason: "tool_permission.mcp",
      },
    ],
  );

  const granted = await wt.replio("tool", "mcp__echo__echo", '{"text":"hi"}', "--yes", "--trust");
  assert.deepEqual([granted.code, granted.stdout], [0, "hi\n"]);

  const denied = await wt.replio("tool", "mcp__echo__add", '{"a":1,"b":2}', "--trust");
  // The person reads why on stderr; stdout (the tool's output) stays empty.
  assert.deepEqual([denied.code, denied.stdout], [3, ""]);
  assert.match(
    denied.stderr,
    /^replio tool: mcp__echo__add needs your confirmation \(tool_permission\.mcp\): rerun with --yes to allow it$/m,
  );
});
