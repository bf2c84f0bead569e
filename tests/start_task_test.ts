/**
 * replio as `deno task start` runs it: with the task's own Deno flags, among them
 * `--unstable-lazy-dynamic-imports`, which loads each module behind a dynamic import only when
 * it is first used (docs/performance.md). Every other test starts replio with Deno's default
 * eager loading; these make sure nothing needs a module that lazy loading would leave out.
 */
import assert from "node:assert/strict";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

/** The Deno flags of `deno task start`, read from deno.json (the entry point left out). */
async function startTaskFlags(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const words = (config.tasks.start as string).split(/\s+/);
  return words.slice(words.indexOf("run") + 1, words.indexOf("main.ts"));
}

Deno.test("deno task start's flags: a headless turn runs every kind of tool and a subcommand", async () => {
  const flags = await startTaskFlags();
  assert.ok(flags.includes("--unstable-lazy-dynamic-imports"), flags.join(" "));
  await using wt = await tempWorktree({ "notes.txt": "alpha\nneedle here\n" });
  await using mock = startMockModel([
    {
      toolCalls: [
        { name: "grep", arguments: { pattern: "needle" } },
        { name: "file_edit", arguments: { path: "notes.txt", old: "alpha", new: "beta" } },
        { name: "run_command", arguments: { command: "echo ran-$((40+2))" } },
        { name: "web_fetch", arguments: { url: "http://127.0.0.1:9/page" } },
        { name: "web_search", arguments: { query: "deno" } },
      ],
    },
    { text: "All done." },
  ]);
  const run = await runReplio(
    ["run", "--base-url", mock.baseUrl, "--model", "m", "--yes", "go"],
    { cwd: wt.path, denoFlags: flags },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /All done\./);
  const results = mock.requests[1]!.messages.filter((m) => m.role === "tool").map((m) =>
    String(m.content)
  );
  assert.match(results[0]!, /notes\.txt:2: ?needle here/);
  assert.equal(await Deno.readTextFile(`${wt.path}/notes.txt`), "beta\nneedle here\n");
  assert.match(results[2]!, /ran-42/);
  // Refused by the private-address guard: the fetcher loaded and judged the address.
  assert.match(results[3]!, /private|loopback/i);
  // Whatever the search backend answers here, it is its answer, not a failed import.
  for (const result of results) assert.doesNotMatch(result, /Module not found|import/i);
  assert.deepEqual(mock.violations, []);

  const tools = await runReplio(["tools"], { cwd: wt.path, denoFlags: flags });
  assert.equal(tools.code, 0, tools.stderr);
  assert.match(tools.stdout, /^run_command /m);
});

Deno.test("deno task start's flags: the REPL starts, runs a tool and pages a kept output", async () => {
  await using wt = await tempWorktree();
  await wt.write(".replio/config.yaml", "tool_permission:\n  bash: allow\n");
  await using repl = await TmuxRepl.start(wt.path, [
    "--trust",
    "--base-url",
    "http://127.0.0.1:9/v1",
  ], {
    denoFlags: await startTaskFlags(),
  });
  await repl.enter("/help");
  await repl.waitFor("/output");
  await repl.enter('/tool run_command {"command":"seq 1 300"}');
  await repl.waitFor(/… \d+ more lines/);
  await repl.enter("/output o1");
  await repl.waitFor(/o1: lines 1–39 of 300/);
  await repl.keys("q");
  await repl.waitForPrompt();
});

Deno.test("deno task start's flags: an MCP server's tool runs (the MCP SDK loads on first use)", async () => {
  const echo = new URL("./support/mcp_echo_server.ts", import.meta.url).pathname;
  await using wt = await tempWorktree({
    ".replio/config.yaml": JSON.stringify({
      mcp_servers: { echo: { command: Deno.execPath(), args: ["run", "-A", echo] } },
      // Waited for as long as only a hang takes: a busy machine starts a server slowly.
      mcp_startup_wait: 60,
      mcp_connect_timeout: 60,
      tool_permission: { mcp: "allow" },
    }),
  });
  const run = await runReplio(
    ["tool", "mcp__echo__echo", '{"text":"through lazy imports"}', "--trust"],
    { cwd: wt.path, denoFlags: await startTaskFlags() },
  );
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout.trim(), "through lazy imports");
});
