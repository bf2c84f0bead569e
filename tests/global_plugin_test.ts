/**
 * A URL plugin added to the global config (`replio plugin add URL --yes --global`) is the user's
 * own choice: it loads in every folder, trusted or not, with or without a `.replio/` (issue 23:
 * every command in an untrusted folder crashed on the pinned entry). A relative entry of the
 * global list still does not load in an untrusted folder: it would import the repository's code.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pluginCacheEnv } from "./support/plugin_cache_env.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const SHOUT = `export const plugin = { name: "shout", tools: [{ spec: { name: "shout",
  description: "Shouts", parameters: { type: "object", properties: { text: { type: "string" } } },
  category: "read", permission: "read" }, handler: ({ text }) => String(text).toUpperCase() }] };
`;

Deno.test("a global URL plugin loads in untrusted folders, with or without .replio/", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(SHOUT, { headers: { "content-type": "application/javascript" } }),
  );
  await using home = await tempWorktree();
  await using bare = await tempWorktree();
  await using project = await tempWorktree({ ".replio/config.yaml": "max_rounds: 3\n" });
  const env = { ...pluginCacheEnv(join(home.path, ".cache")), XDG_CONFIG_HOME: home.path };
  const url = `http://127.0.0.1:${server.addr.port}/shout.js`;
  try {
    const added = await runReplio(["plugin", "add", url, "--yes", "--global"], {
      cwd: home.path,
      env,
    });
    assert.equal(added.code, 0, added.stderr);
    for (const wt of [bare, project]) {
      const ran = await runReplio(["tool", "shout", '{"text":"hi"}'], { cwd: wt.path, env });
      assert.deepEqual([ran.code, ran.stdout], [0, "HI\n"], ran.stderr);
      assert.doesNotMatch(ran.stderr, /at \S+:\d+:\d+/, "no stack trace");
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("a relative entry of the global plugins list still skips an untrusted folder", async () => {
  await using home = await tempWorktree();
  await using wt = await tempWorktree({
    "p.js": SHOUT.replaceAll('"shout"', '"repo_tool"'),
  });
  await home.write("replio/config.yaml", "plugins: [p.js]\n");
  const env = { ...pluginCacheEnv(join(home.path, ".cache")), XDG_CONFIG_HOME: home.path };
  const args = ["tool", "repo_tool", '{"text":"hi"}'];
  const untrusted = await runReplio(args, { cwd: wt.path, env });
  assert.match(untrusted.stdout, /^Error: unknown tool "repo_tool"/);
  assert.match(untrusted.stderr, /ignored the worktree plugins p\.js of the global config/);
  // Control: the same entry loads the repository's code once the folder is trusted.
  const trusted = await runReplio([...args, "--trust"], { cwd: wt.path, env });
  assert.deepEqual([trusted.code, trusted.stdout], [0, "HI\n"], trusted.stderr);
});
