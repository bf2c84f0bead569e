import assert from "node:assert/strict";
import { join } from "node:path";
import type { IgnoredProject } from "./config.ts";
import { loadConfig } from "./load.ts";
import { findTrustingEntry, formatTrustNotice } from "./trust.ts";

/** A real worktree with a global file beside it; removed on dispose. */
async function folders(texts: { global?: string; local?: string; agents?: boolean }) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_trust_" }));
  const worktree = join(dir, "wt");
  const paths = {
    global: join(dir, "global.yaml"),
    local: join(worktree, ".replio", "config.yaml"),
  };
  await Deno.mkdir(join(worktree, ".replio", "agents"), { recursive: true });
  if (texts.global !== undefined) {
    await Deno.writeTextFile(paths.global, texts.global.replaceAll("$WT", worktree));
  }
  if (texts.local !== undefined) await Deno.writeTextFile(paths.local, texts.local);
  if (texts.agents) await Deno.writeTextFile(join(worktree, ".replio", "agents", "a.md"), "x");
  return {
    dir,
    worktree,
    paths,
    load: (trust?: boolean) => loadConfig({ worktree, paths, trust }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const EMPTY: IgnoredProject = {
  configFile: null,
  values: {},
  kept: [],
  invalid: null,
  agentFiles: [],
  pluginsFolder: false,
  worktreePlugins: [],
};

Deno.test("loadConfig leaves an untrusted local file out but keeps what tightens", async () => {
  await using f = await folders({
    global: "tool_permission: {edit: ask}\ntools: {deny: [web_fetch]}\n",
    local: "model: theirs\ntools: {deny: [bash]}\ntool_permission: {edit: allow, web: deny}\n",
    agents: true,
  });
  const config = await f.load();
  assert.equal(config.get("model"), "");
  assert.deepEqual(config.get("tools.deny"), ["web_fetch", "bash"]);
  assert.equal(config.get("tool_permission.edit"), "ask");
  assert.deepEqual(config.setting("tool_permission.web"), {
    value: "deny",
    origin: "local",
    file: f.paths.local,
  });
  assert.deepEqual(config.trust, {
    worktree: f.worktree,
    trusted: false,
    by: null,
    ignored: {
      ...EMPTY,
      configFile: f.paths.local,
      values: { model: "theirs", "tool_permission.edit": "allow" },
      kept: ["tools.deny", "tool_permission.web"],
      agentFiles: ["a.md"],
    },
  });
});

Deno.test("loadConfig trusts a worktree under a trusted_folders entry, or with --trust", async () => {
  await using f = await folders({ global: "trusted_folders: [$WT/..]\n", local: "model: ours\n" });
  const config = await f.load();
  assert.equal(config.get("model"), "ours");
  assert.deepEqual(config.trust, {
    worktree: f.worktree,
    trusted: true,
    by: `${f.worktree}/..`,
    ignored: null,
  });
  await Deno.writeTextFile(f.paths.global, "");
  assert.equal((await f.load()).get("model"), "");
  assert.equal((await f.load(true)).trust.by, "--trust");
});

Deno.test("loadConfig ignores trusted_folders in a trusted project's own file", async () => {
  await using f = await folders({ local: "trusted_folders: [/elsewhere]\nmax_rounds: 4\n" });
  const config = await f.load(true);
  assert.deepEqual(config.get("trusted_folders"), []);
  assert.equal(config.get("max_rounds"), 4);
  assert.deepEqual(config.trust.ignored?.values, { trusted_folders: ["/elsewhere"] });
  assert.match(formatTrustNotice(config.trust)!, /only read from the global config/);
});

Deno.test("loadConfig reads an invalid untrusted file as ignored, not as an error", async () => {
  await using f = await folders({ local: "max_rounds: ten\n" });
  const { trust } = await f.load();
  assert.equal(
    trust.ignored?.invalid,
    '"max_rounds" must be an integer >= 1, got "ten": see docs/config.md',
  );
  await assert.rejects(f.load(true), /max_rounds/);
});

Deno.test("loadConfig has nothing to report for a worktree without project settings", async () => {
  await using f = await folders({ local: "# nothing\n" });
  assert.equal((await f.load()).trust.ignored, null);
  assert.equal(formatTrustNotice((await f.load()).trust), null);
});

Deno.test("findTrustingEntry skips relative entries and near-miss prefixes", async () => {
  assert.equal(
    await findTrustingEntry("/nonexistent/a/b", ["a", "/nonexistent/a/"]),
    "/nonexistent/a/",
  );
  assert.equal(await findTrustingEntry("/nonexistent/ab", ["/nonexistent/a"]), null);
  assert.equal(await findTrustingEntry("/nonexistent/a/..b", ["/nonexistent/a"]), "/nonexistent/a");
});
