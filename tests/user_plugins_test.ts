/**
 * User plugins named in config `plugins` load at start-up and pass the same registry and policy.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pluginCacheEnv } from "./support/plugin_cache_env.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

/** Runs replio trusting the worktree: its `.replio/config.yaml` names the plugins. */
function replio(cwd: string, ...args: string[]) {
  return runReplio([...args, "--trust"], { cwd, env: pluginCacheEnv(join(cwd, ".cache")) });
}

const PLUGIN = `export const plugin = {
  name: "hello-plugin",
  tools: [{
    spec: {
      name: "hello",
      description: "Greets someone",
      parameters: { type: "object", properties: { who: { type: "string", description: "Name" } }, required: ["who"] },
      category: "read",
      permission: "read",
    },
    handler: ({ who }) => "hello " + who,
  }],
};
`;

Deno.test("loadUserPlugins registers a configured plugin's tools under the policy", async () => {
  await using wt = await tempWorktree({
    ".replio/plugins/hello.js": PLUGIN,
    ".replio/config.yaml": "plugins: [.replio/plugins/hello.js]\n",
  });
  const ran = await replio(wt.path, "tool", "hello", '{"who":"ada"}');
  assert.equal(ran.stdout, "hello ada\n");
  assert.equal(ran.code, 0);
  const denied = await replio(wt.path, "tool", "hello", '{"who":"ada"}', "--mode", "plan");
  assert.equal(denied.code, 0, "plan mode does not deny read tools");
  await Deno.writeTextFile(
    `${wt.path}/.replio/config.yaml`,
    "plugins: [.replio/plugins/hello.js]\ntools:\n  deny: [hello]\n",
  );
  const listed = await replio(wt.path, "tools", "--json");
  const listing = JSON.parse(listed.stdout);
  assert.ok(!listing.tools.some((t: { name: string }) => t.name === "hello"));
  assert.deepEqual(listing.hidden.find((t: { name: string }) => t.name === "hello"), {
    name: "hello",
    reason: "tools.deny",
  });
});

Deno.test("loadUserPlugins skips a broken plugin with the fix and keeps the others", async () => {
  await using wt = await tempWorktree({
    ".replio/plugins/bad.js":
      "export const plugin = { name: 'bad', tools: [{ spec: { name: 'x' } }] };\n",
    ".replio/plugins/hello.js": PLUGIN,
    ".replio/config.yaml":
      "plugins: [.replio/plugins/bad.js, missing.js, .replio/plugins/hello.js]\n",
  });
  const ran = await replio(wt.path, "tool", "hello", '{"who":"ada"}');
  assert.equal(ran.stdout, "hello ada\n");
  assert.equal(ran.code, 0);
  assert.match(
    ran.stderr,
    /Cannot load plugin "\.replio\/plugins\/bad\.js" \(continuing without it\): tool "x" without a handler: see docs\/plugins\.md/,
  );
  assert.match(
    ran.stderr,
    /Cannot load plugin "missing\.js" \(continuing without it\): no such file ".*missing\.js": fix the path in config `plugins`/,
  );
});

Deno.test("createRegistry refuses a user plugin that reuses a tool name, with exit 2", async () => {
  await using wt = await tempWorktree({
    ".replio/plugins/clash.js": PLUGIN.replace('name: "hello",', 'name: "file_read",'),
    ".replio/config.yaml": "plugins: [.replio/plugins/clash.js]\n",
  });
  const ran = await replio(wt.path, "tools");
  assert.equal(ran.code, 2);
  assert.match(
    ran.stderr,
    /Cannot load plugin "hello-plugin": .*"file_read" is taken: rename the tool or drop the plugin/,
  );
});
