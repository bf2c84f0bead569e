/**
 * Issue #22 item 6: what runs is what was pinned. The type-stripped JavaScript and the tool
 * list replio caches for a plugin are sealed when made from the checked source; a copy edited
 * afterwards is refused with a note, the plugin fetched again from its URL (a local one read
 * again) and stripped afresh. The plugin is served on 127.0.0.1, and may write one folder of
 * the worktree, where the tampered code would leave its marker.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { exists } from "../support/exists.ts";
import { pluginCacheEnv } from "../support/plugin_cache_env.ts";
import { runReplio } from "../support/replio_process.ts";
import { type TempWorktree, tempWorktree } from "../support/worktree.ts";
import { PluginWorker } from "../../src/plugins/worker_host.ts";

const SOURCE = `/*! replio-plugin {"permissions": {"write": ["out"]}} */
interface Args { who: string }
export const plugin = {
  name: "cache-probe",
  tools: [{
    spec: {
      name: "hello",
      description: "Greets someone",
      parameters: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
      category: "write" as const,
      permission: "edit" as const,
    },
    handler: ({ who }: Args): string => "hello " + who,
  }],
};
`;

/** A static server for the plugin that counts fetches. */
function pluginServer() {
  const state = { hits: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    state.hits++;
    return new Response(SOURCE, { headers: { "content-type": "application/typescript" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/probe.ts`,
    state,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** replio in the worktree with its own plugin cache; `tool` and `run` trust the folder. */
function replio(wt: TempWorktree, ...args: string[]) {
  const trusted = args[0] === "tool" ? [...args, "--trust"] : args;
  return runReplio(trusted, { cwd: wt.path, env: pluginCacheEnv(join(wt.path, ".cache")) });
}

/** The one cache file of a kind (`js`, `tools`, `source`). */
async function cacheFile(wt: TempWorktree, kind: string): Promise<string> {
  const dir = join(wt.path, ".cache", "replio", "plugins");
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.endsWith(`.${kind}`)) files.push(join(dir, entry.name));
  }
  assert.equal(files.length, 1, `one .${kind} file in ${dir}`);
  return files[0]!;
}

/** The cached JavaScript with a first statement that writes the marker, its seal kept. */
function tamper(sealed: string, marker: string): string {
  const [seal, ...code] = sealed.split("\n");
  return [seal, `Deno.writeTextFileSync(${JSON.stringify(marker)}, "tampered");`, ...code]
    .join("\n");
}

Deno.test("an edited cached .js of a URL plugin is refused, fetched again, with a note", async () => {
  await using server = pluginServer();
  await using wt = await tempWorktree({ "out/.keep": "" });
  const marker = join(wt.path, "out", "marker.txt");
  assert.equal((await replio(wt, "plugin", "add", server.url, "--yes")).code, 0);
  const first = await replio(wt, "tool", "hello", '{"who":"ada"}');
  assert.deepEqual([first.stdout, first.stderr], ["hello ada\n", ""]);
  // Control: an untouched cache loads without fetching.
  const hits = server.state.hits;
  const cached = await replio(wt, "tool", "hello", '{"who":"bo"}');
  assert.deepEqual([cached.stdout, cached.stderr, server.state.hits], ["hello bo\n", "", hits]);

  const js = await cacheFile(wt, "js");
  await Deno.writeTextFile(js, tamper(await Deno.readTextFile(js), marker));
  const ran = await replio(wt, "tool", "hello", '{"who":"cy"}');
  assert.equal(ran.stdout, "hello cy\n");
  assert.equal(await exists(marker), false, "the edited JavaScript ran");
  assert.equal(server.state.hits, hits + 1, "the plugin was fetched again");
  assert.equal(
    ran.stderr,
    `replio: Not running the cached JavaScript of plugin "${server.url}": "${js}" was changed ` +
      "after replio made it: fetched the plugin again, checked it against its pin and made it " +
      "again\n",
  );
  // Made again: the next run uses the cache quietly.
  const after = await replio(wt, "tool", "hello", '{"who":"di"}');
  assert.deepEqual([after.stdout, after.stderr, server.state.hits], ["hello di\n", "", hits + 1]);
});

Deno.test("control: the edited .js, started as the plugin's Worker, writes the marker", async () => {
  await using server = pluginServer();
  await using wt = await tempWorktree({ "out/.keep": "" });
  const marker = join(wt.path, "out", "marker.txt");
  assert.equal((await replio(wt, "plugin", "add", server.url, "--yes")).code, 0);
  const [, ...code] = tamper(await Deno.readTextFile(await cacheFile(wt, "js")), marker)
    .split("\n");
  const worker = new PluginWorker(code.join("\n"), { write: [join(wt.path, "out")] }, server.url);
  try {
    await worker.start();
  } finally {
    worker.terminate();
  }
  assert.equal(await Deno.readTextFile(marker), "tampered");
});

Deno.test("an edited cached tool list or source copy is not used, with a note", async () => {
  await using server = pluginServer();
  await using wt = await tempWorktree({ "out/.keep": "" });
  assert.equal((await replio(wt, "plugin", "add", server.url, "--yes")).code, 0);
  assert.equal((await replio(wt, "tool", "hello", '{"who":"ada"}')).code, 0);
  // The tool list decides what the policy sees: a lower permission would skip a question.
  const tools = await cacheFile(wt, "tools");
  const list = await Deno.readTextFile(tools);
  assert.match(list, /"permission":"edit"/);
  await Deno.writeTextFile(tools, list.replace('"permission":"edit"', '"permission":"read"'));
  const listed = await replio(wt, "tool", "hello", '{"who":"bo"}');
  assert.equal(listed.stdout, "hello bo\n");
  assert.equal(
    listed.stderr,
    `replio: Not using the cached tool list of plugin "${server.url}": "${tools}" was changed ` +
      "after replio wrote it: its Worker lists the tools again\n",
  );

  const hits = server.state.hits;
  const source = await cacheFile(wt, "source");
  await Deno.writeTextFile(source, (await Deno.readTextFile(source)) + "\n// edited\n");
  const refetched = await replio(wt, "tool", "hello", '{"who":"cy"}');
  assert.equal(refetched.stdout, "hello cy\n");
  assert.equal(server.state.hits, hits + 1);
  assert.equal(
    refetched.stderr,
    `replio: Not using the cached copy of plugin "${server.url}": "${source}" does not match its ` +
      "pin: fetched it again\n",
  );
});

Deno.test("an edited cached .js of a local TypeScript plugin is made again from its file", async () => {
  await using wt = await tempWorktree({
    "out/.keep": "",
    ".replio/plugins/probe.ts": SOURCE,
    ".replio/config.yaml": "plugins: [.replio/plugins/probe.ts]\n",
  });
  const marker = join(wt.path, "out", "marker.txt");
  assert.equal((await replio(wt, "tool", "hello", '{"who":"ada"}')).stdout, "hello ada\n");
  const js = await cacheFile(wt, "js");
  await Deno.writeTextFile(js, tamper(await Deno.readTextFile(js), marker));
  const ran = await replio(wt, "tool", "hello", '{"who":"bo"}');
  assert.equal(ran.stdout, "hello bo\n");
  assert.equal(await exists(marker), false, "the edited JavaScript ran");
  assert.equal(
    ran.stderr,
    'replio: Not running the cached JavaScript of plugin ".replio/plugins/probe.ts": ' +
      `"${js}" was changed after replio made it: made it again from the plugin's file\n`,
  );
});
