/**
 * URL plugins (docs/plugins.md): `replio plugin add` pins a fetched module by its integrity and
 * the granted permissions; the loader fetches, checks, strips types and starts a Worker from the
 * source (the path a compiled binary takes too), uses the cache offline, refuses a changed file
 * until `update`, and never writes replio's own deno.lock.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse } from "yaml";
import { pluginCacheEnv } from "./support/plugin_cache_env.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const LOCK = new URL("../deno.lock", import.meta.url).pathname;

function pluginSource(greeting: string): string {
  return `/*! replio-plugin {"permissions": {"env": ["GREETING_SUFFIX"]}} */
import type { Unused } from "./types.ts";
interface Args { who: string }
export const plugin = {
  name: "hello-url",
  tools: [{
    spec: {
      name: "hello",
      description: "Greets someone",
      parameters: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
      category: "read" as const,
      permission: "read" as const,
    },
    handler: ({ who }: Args): string => "${greeting} " + who + (Deno.env.get("GREETING_SUFFIX") ?? ""),
  }],
};
`;
}

/** A static server for one module whose text the test can change. */
function moduleServer() {
  const state = { body: pluginSource("hello"), hits: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    state.hits++;
    return new Response(state.body, { headers: { "content-type": "application/typescript" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/hello.ts`,
    state,
    shutdown: () => server.shutdown(),
  };
}

async function lockHash(): Promise<string> {
  const bytes = await Deno.readFile(LOCK);
  return btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))));
}

/** Commands that load the worktree's config get `--trust` (`plugin` writes it, trusted or not). */
function trusted(args: string[]): string[] {
  return ["tool", "tools", "run"].includes(args[0] ?? "") ? [...args, "--trust"] : args;
}

Deno.test("replio plugin add pins a URL plugin; it runs in a Worker, offline from the cache", async () => {
  const server = moduleServer();
  await using wt = await tempWorktree();
  const env = { ...pluginCacheEnv(join(wt.path, ".cache")), GREETING_SUFFIX: "!" };
  // The plugin is added to this worktree's config, which loads in a trusted folder only.
  const replio = (...args: string[]) => runReplio(trusted(args), { cwd: wt.path, env });
  const lockBefore = await lockHash();
  try {
    const refused = await replio("plugin", "add", server.url);
    assert.equal(refused.code, 1, "no terminal and no --yes: nothing is granted");
    assert.match(refused.stderr, /Grant env=GREETING_SUFFIX\? needs an answer: rerun with --yes/);

    const added = await replio("plugin", "add", server.url, "--yes");
    assert.equal(added.code, 0, added.stderr);
    assert.match(added.stdout, /tools: hello \(read\)\n {2}requests: env=GREETING_SUFFIX\n/);
    const config = parse(await wt.read(".replio/config.yaml"));
    assert.equal(config.plugins.length, 1);
    assert.equal(config.plugins[0].url, server.url);
    assert.match(config.plugins[0].integrity, /^sha256-/);
    assert.deepEqual(config.plugins[0].permissions, { env: ["GREETING_SUFFIX"] });

    const ran = await replio("tool", "hello", '{"who":"ada"}', "--json");
    const result = JSON.parse(ran.stdout);
    assert.equal(result.output, "hello ada!");
    assert.equal(result.isolation, "worker(env=GREETING_SUFFIX)");

    const listed = await replio("plugin", "list");
    assert.match(listed.stdout, /hello\.ts {2}sha256-\S+ {2}grants: env=GREETING_SUFFIX {2}cached/);

    // Offline: the server is gone, the pinned copy in the cache still runs.
    await server.shutdown();
    const offline = await replio("tool", "hello", '{"who":"bo"}');
    assert.equal(offline.stdout, "hello bo!\n");
    assert.equal(offline.stderr, "");

    const removed = await replio("plugin", "remove", server.url);
    assert.equal(removed.code, 0);
    assert.equal(parse(await wt.read(".replio/config.yaml")).plugins.length, 0);
  } finally {
    await server.shutdown().catch(() => {});
  }
  assert.equal(await lockHash(), lockBefore, "replio's deno.lock is untouched");
  assert.equal(await Deno.lstat(join(wt.path, "deno.lock")).then(() => true, () => false), false);
});

Deno.test("a changed file at a pinned URL is refused until replio plugin update", async () => {
  const server = moduleServer();
  await using wt = await tempWorktree();
  const env = (cache: string) => pluginCacheEnv(join(wt.path, cache));
  const replio = (cache: string, ...args: string[]) =>
    runReplio(trusted(args), { cwd: wt.path, env: env(cache) });
  try {
    assert.equal((await replio(".cache1", "plugin", "add", server.url, "--yes")).code, 0);
    server.state.body = pluginSource("pwned");
    // A machine without the cached copy fetches the changed file and refuses it.
    const refused = await replio(".cache2", "tool", "hello", '{"who":"ada"}');
    assert.match(refused.stdout, /^Error: unknown tool "hello"/);
    assert.match(
      refused.stderr,
      new RegExp(
        `Cannot load plugin "${server.url}" \\(continuing without it\\): ${server.url} changed ` +
          `since it was added \\(integrity sha256-\\S+, pinned sha256-\\S+\\): review it, then run ` +
          "`replio plugin update ",
      ),
    );
    // Control: the pinned copy still runs where it is cached.
    assert.equal((await replio(".cache1", "tool", "hello", '{"who":"ada"}')).stdout, "hello ada\n");

    const updated = await replio(".cache2", "plugin", "update", server.url, "--yes");
    assert.equal(updated.code, 0, updated.stderr);
    const ran = await replio(".cache2", "tool", "hello", '{"who":"ada"}');
    assert.equal(ran.stdout, "pwned ada\n");
  } finally {
    await server.shutdown();
  }
});

Deno.test("a URL plugin whose integrity does not match the pin is refused", async () => {
  const server = moduleServer();
  await using wt = await tempWorktree({
    ".replio/config.yaml":
      "plugins:\n  - url: URL\n    integrity: sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
  });
  await wt.write(
    ".replio/config.yaml",
    (await wt.read(".replio/config.yaml")).replace("URL", server.url),
  );
  try {
    const ran = await runReplio(["tool", "hello", '{"who":"ada"}', "--trust"], {
      cwd: wt.path,
      env: pluginCacheEnv(join(wt.path, ".cache")),
    });
    assert.match(ran.stdout, /^Error: unknown tool "hello"/);
    assert.match(
      ran.stderr,
      /changed since it was added \(integrity sha256-\S+, pinned sha256-A+=\)/,
    );
    assert.equal(server.state.hits, 1);
  } finally {
    await server.shutdown();
  }
});
