import assert from "node:assert/strict";
import { join } from "node:path";
import { Config, ConfigError } from "./config.ts";
import type { ConfigKey } from "./defaults.ts";
import { loadConfig, readConfigFile } from "./load.ts";

/** A temp folder holding a global and a local config file with the given texts. */
async function configFiles(texts: { global?: string; local?: string }) {
  const dir = await Deno.makeTempDir({ prefix: "replio_cfg_" });
  const paths = {
    global: join(dir, "global.yaml"),
    local: join(dir, "wt", ".replio", "config.yaml"),
  };
  await Deno.mkdir(join(dir, "wt", ".replio"), { recursive: true });
  if (texts.global !== undefined) await Deno.writeTextFile(paths.global, texts.global);
  if (texts.local !== undefined) await Deno.writeTextFile(paths.local, texts.local);
  return {
    paths,
    load: (flags: Partial<Record<ConfigKey, unknown>> = {}) =>
      loadConfig({ worktree: join(dir, "wt"), paths, flags, trust: true }),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("loadConfig merges defaults < global < local < flags with origins", async () => {
  await using files = await configFiles({
    global: "model: global-model\nmax_rounds: 10\nmax_retries: 5\n",
    local: "max_rounds: 20\nmax_retries: 6\n",
  });
  const config = await files.load({ max_retries: 7 });
  assert.deepEqual(config.setting("provider"), { value: "openai", origin: "default" });
  assert.deepEqual(config.setting("model"), {
    value: "global-model",
    origin: "global",
    file: files.paths.global,
  });
  assert.deepEqual(config.setting("max_rounds"), {
    value: 20,
    origin: "local",
    file: files.paths.local,
  });
  assert.deepEqual(config.setting("max_retries"), { value: 7, origin: "flag" });
});

Deno.test("loadConfig reads missing and empty files as no settings", async () => {
  await using files = await configFiles({ local: "# nothing yet\n" });
  const config = await files.load();
  assert.deepEqual(config.entries(), Config.defaults().entries());
});

Deno.test("loadConfig merges modes and agents per entry and replaces lists", async () => {
  await using files = await configFiles({
    global: [
      "tools: {deny: [bash, web_fetch]}",
      "modes:",
      "  review: {tool_permission: {edit: ask}}",
      "  audit: {tools: {deny: [file_write]}}",
      "agents:",
      "  helper: {description: from global}",
      "",
    ].join("\n"),
    local: [
      "tools: {deny: [git_commit]}",
      "modes:",
      "  review: {tool_permission: {bash: deny}}",
      "agents:",
      "  tester: {max_rounds: 3}",
      "",
    ].join("\n"),
  });
  const config = await files.load();
  assert.deepEqual(config.get("tools.deny"), ["git_commit"]);
  assert.deepEqual(config.get("modes"), {
    review: { tool_permission: { bash: "deny" } },
    audit: { tools: { deny: ["file_write"] } },
  });
  assert.deepEqual(config.get("agents"), {
    helper: { description: "from global" },
    tester: { max_rounds: 3 },
  });
  assert.equal(config.setting("modes").origin, "local");
});

Deno.test("readConfigFile reads nested and flat spellings of dotted keys alike", async () => {
  await using files = await configFiles({
    global: "tool_permission:\n  bash: allow\ndev: {test_cmd: make test}\n",
    local: '"tool_permission.bash": allow\n"dev.test_cmd": make test\n',
  });
  const expected = { "tool_permission.bash": "allow", "dev.test_cmd": "make test" };
  assert.deepEqual(await readConfigFile(files.paths.global), expected);
  assert.deepEqual(await readConfigFile(files.paths.local), expected);
});

const INVALID_FILES: { name: string; text: string; message: (file: string) => string }[] = [
  {
    name: "wrong type",
    text: "max_rounds: ten\n",
    message: (f) =>
      `Cannot load ${f}: "max_rounds" must be an integer >= 1, got "ten": see docs/config.md`,
  },
  {
    name: "out of range",
    text: "compact_threshold: 1.5\n",
    message: (f) =>
      `Cannot load ${f}: "compact_threshold" must be a number > 0 and <= 1, got 1.5: see docs/config.md`,
  },
  {
    name: "bad action",
    text: "tool_permission:\n  bash: sometimes\n",
    message: (f) =>
      `Cannot load ${f}: "tool_permission.bash" must be one of "allow", "ask", "deny", got "sometimes": see docs/config.md`,
  },
  {
    name: "list of the wrong items",
    text: "tools:\n  deny: [1, 2]\n",
    message: (f) =>
      `Cannot load ${f}: "tools.deny" at "/0" must be a string, got 1: see docs/config.md`,
  },
  {
    name: "bad mode entry",
    text: "modes:\n  review: {tool_permission: {edit: maybe}}\n",
    message: (f) =>
      `Cannot load ${f}: "modes" at "/review/tool_permission/edit" must be one of "allow", "ask", "deny" or a list of strings, got "maybe": see docs/config.md`,
  },
  {
    name: "unknown setting in a mode",
    text: "modes:\n  review: {allow: [grep]}\n",
    message: (f) =>
      `Cannot load ${f}: "modes" at "/review/allow" is not a known setting: use one of description, instructions, read_only, tool_permission, tools: see docs/config.md`,
  },
  {
    name: "unknown key",
    text: "modle: gpt\n",
    message: (f) => `Cannot load ${f}: unknown key "modle": did you mean "model"?`,
  },
  {
    name: "unknown nested key",
    text: "tool_permission:\n  bsh: allow\n",
    message: (f) =>
      `Cannot load ${f}: unknown key "tool_permission.bsh": did you mean "tool_permission.bash"?`,
  },
  {
    name: "unknown key far from any",
    text: "completely_unrelated_setting: 1\n",
    message: (f) =>
      `Cannot load ${f}: unknown key "completely_unrelated_setting": see docs/config.md for the keys`,
  },
  {
    name: "bad YAML",
    text: "model: [unclosed\n",
    message: (f) =>
      `Cannot load ${f}: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1: fix the file's syntax`,
  },
  {
    name: "top level not a mapping",
    text: "- model\n- max_rounds\n",
    message: (f) => `Cannot load ${f}: the top level must be a mapping of keys: see docs/config.md`,
  },
];

for (const { name, text, message } of INVALID_FILES) {
  Deno.test(`loadConfig rejects a local file with ${name}, naming file, key and expectation`, async () => {
    await using files = await configFiles({ local: text });
    await assert.rejects(files.load(), (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, message(files.paths.local));
      return true;
    });
  });
}

Deno.test("loadConfig names the global file when that one is wrong", async () => {
  await using files = await configFiles({ global: "show_errors: yes please\n", local: "" });
  await assert.rejects(
    files.load(),
    new ConfigError(
      `Cannot load ${files.paths.global}: "show_errors" must be true or false, got "yes please": see docs/config.md`,
    ),
  );
});

Deno.test("loadConfig validates flags like file values", async () => {
  await using files = await configFiles({});
  await assert.rejects(
    files.load({ max_rounds: 0 }),
    new ConfigError(
      'Cannot load the command line: "max_rounds" must be an integer >= 1, got 0: see docs/config.md',
    ),
  );
});
