/**
 * The Deno permission layer beneath ToolPolicy (DESIGN.md §1): replio started with fewer Deno
 * permissions offers only the tools it could run, and a path it may not touch is a clear
 * `Error:` naming the missing flag. Never Deno's own prompt: always `--no-prompt`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Config } from "../src/config/mod.ts";
import { createToolContext } from "../src/tools/mod.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function replio(cwd: string, denoFlags: string[], ...args: string[]): Promise<Run> {
  return await runReplio(args, {
    cwd,
    denoFlags,
    env: { XDG_CONFIG_HOME: join(cwd, ".no-global") },
  });
}

interface ToolsListing {
  tools: { name: string; permission: string }[];
  hidden: { name: string; reason: string }[];
}

/** The permission keys whose tools need more than read (granted below). */
const MISSING_FLAG: Record<string, true> = { edit: true, bash: true, web: true, mcp: true };

Deno.test("replio tools --json leaves out run, edit and web tools without their Deno flags", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  const all = JSON.parse((await replio(wt.path, ["-A"], "tools", "--json")).stdout) as ToolsListing;
  const run = await replio(wt.path, [`--allow-read=${wt.path}`, "--allow-env"], "tools", "--json");
  assert.equal(run.code, 0, run.stderr);
  const limited = JSON.parse(run.stdout) as ToolsListing;

  const impossible = all.tools.filter((t) => t.permission in MISSING_FLAG);
  for (const key of ["edit", "bash", "web"]) {
    assert.ok(impossible.some((t) => t.permission === key), `some bundled tool needs ${key}`);
  }
  assert.deepEqual(limited.tools.filter((t) => t.permission in MISSING_FLAG), []);
  // git runs a program, web_fetch reaches any host and delegate talks to the model: they go
  // too, whatever their permission key says.
  const declared = new Set(["git", "web_fetch", "delegate"]);
  assert.deepEqual(
    limited.tools.map((t) => t.name),
    all.tools.filter((t) => !(t.permission in MISSING_FLAG) && !declared.has(t.name))
      .map((t) => t.name),
  );
  // Each names the exact flags its declared needs call for.
  const needs: Record<string, string> = {
    web_search: "--allow-net",
    web_fetch: "--allow-net",
    file_write: `--allow-write=${wt.path}`,
    file_edit: `--allow-write=${wt.path}`,
    git: "--allow-run=git",
    git_commit: `--allow-write=${wt.path} --allow-run=git`,
    code_test: "--allow-run=setsid,bash",
    code_lint: "--allow-run=setsid,bash",
    code_format: "--allow-run=setsid,bash",
    run_command: "--allow-run=setsid,bash",
    delegate: "--allow-net",
  };
  assert.deepEqual(
    limited.hidden,
    all.tools.filter((t) => t.name in needs).map((t) => ({
      name: t.name,
      reason: `deno: needs ${needs[t.name]}`,
    })),
  );
});

Deno.test("replio tool refuses a tool whose Deno permission is missing, as policy deny", async () => {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  const run = await replio(
    wt.path,
    [`--allow-read=${wt.path}`, "--allow-env"],
    "tool",
    "file_edit",
    '{"path":"a.txt","old":"a","new":"b"}',
    "--yes",
  );
  // Written for the person (on stderr): what is missing and how to get it.
  assert.deepEqual(run, {
    code: 3,
    stdout: "",
    stderr: `replio tool: replio was started without --allow-write=${wt.path}: restart it with ` +
      `--allow-write=${wt.path} to use file_edit\n`,
  });
  assert.equal(await wt.read("a.txt"), "a\n");
});

Deno.test("replio tool file_read outside the granted paths names --allow-read", async () => {
  await using wt = await tempWorktree({ "a.txt": "inside\n" });
  await using granted = await tempWorktree({ "shared.txt": "granted\n" });
  await using secret = await tempWorktree({ "secret.txt": "secret\n" });
  const flags = [`--allow-read=${wt.path},${granted.path}`, "--allow-env"];

  const inside = await replio(wt.path, flags, "tool", "file_read", '{"path":"a.txt"}');
  assert.equal(inside.code, 0, inside.stdout + inside.stderr);
  assert.ok(inside.stdout.includes("inside"), inside.stdout);

  const shared = join(granted.path, "shared.txt");
  const elsewhere = await replio(
    wt.path,
    flags,
    "tool",
    "file_read",
    JSON.stringify({ path: shared }),
    "--yes",
  );
  assert.equal(elsewhere.code, 0, elsewhere.stdout + elsewhere.stderr);
  assert.ok(elsewhere.stdout.includes("granted"), elsewhere.stdout);

  const file = join(secret.path, "secret.txt");
  const refused = await replio(
    wt.path,
    flags,
    "tool",
    "file_read",
    JSON.stringify({ path: file }),
    "--yes",
  );
  assert.deepEqual(refused, {
    code: 1,
    stdout:
      `Error: Cannot read "${file}": replio was started without read access there: restart it with --allow-read=${file} (or a parent directory)\n`,
    stderr: "",
  });
});

Deno.test({
  name: "ToolContext.resolvePath names the missing flag for a path outside the grant",
  permissions: { read: ["/tmp"], env: true },
  async fn() {
    const ctx = createToolContext({
      config: Config.defaults(),
      worktree: "/tmp",
      signal: new AbortController().signal,
    });
    assert.equal(await ctx.resolvePath("/tmp/x.txt"), "/tmp/x.txt");
    await assert.rejects(
      ctx.resolvePath("/etc/hostname"),
      new Deno.errors.NotCapable(
        'Cannot read "/etc/hostname": replio was started without read access there: restart it with --allow-read=/etc/hostname (or a parent directory)',
      ),
    );
    await assert.rejects(
      ctx.resolvePath("/tmp/out.txt", "write"),
      new Deno.errors.NotCapable(
        'Cannot write "/tmp/out.txt": replio was started without write access there: restart it with --allow-write=/tmp/out.txt (or a parent directory)',
      ),
    );
  },
});
