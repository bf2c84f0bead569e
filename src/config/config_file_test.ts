import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./config.ts";
import { parseCliValue, setConfigValue, splitKeyPath, unsetConfigValue } from "./config_file.ts";

/** A temp folder with `.replio/config.yaml` holding `text` (or no file when undefined). */
async function configFile(text?: string) {
  const dir = await Deno.makeTempDir({ prefix: "replio_cfgfile_" });
  const file = join(dir, ".replio", "config.yaml");
  if (text !== undefined) {
    await Deno.mkdir(join(dir, ".replio"));
    await Deno.writeTextFile(file, text);
  }
  return {
    file,
    read: () => Deno.readTextFile(file),
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const COMMENTED = `# my settings
model: gpt-x # the model

# policy
tool_permission:
  read: allow # reading is fine
`;

Deno.test("setConfigValue nests dotted keys and keeps comments and other keys", async () => {
  await using cfg = await configFile(COMMENTED);
  await setConfigValue(cfg.file, "tool_permission.bash", "allow");
  await setConfigValue(cfg.file, "tools.deny", ["web_fetch"]);
  await setConfigValue(cfg.file, "max_rounds", 7);
  assert.equal(
    await cfg.read(),
    `# my settings
model: gpt-x # the model

# policy
tool_permission:
  read: allow # reading is fine
  bash: allow
tools:
  deny:
    - web_fetch
max_rounds: 7
`,
  );
});

Deno.test("setConfigValue creates the folder and a file holding only the key set", async () => {
  await using cfg = await configFile();
  await setConfigValue(cfg.file, "tool_permission.bash", "allow");
  assert.equal(await cfg.read(), "tool_permission:\n  bash: allow\n");
});

Deno.test("setConfigValue replaces a value where the file spells the key flat", async () => {
  await using cfg = await configFile('"tool_permission.bash": ask # flat\n');
  await setConfigValue(cfg.file, "tool_permission.bash", "deny");
  assert.equal(await cfg.read(), '"tool_permission.bash": deny # flat\n');
});

Deno.test("setConfigValue sets entries beneath per-entry mappings", async () => {
  await using cfg = await configFile("modes:\n  audit: {tools: {deny: [bash]}}\n");
  await setConfigValue(cfg.file, "modes.review.tool_permission.edit", "ask");
  assert.equal(
    await cfg.read(),
    "modes:\n  audit: { tools: { deny: [ bash ] } }\n  review:\n    tool_permission:\n      edit: ask\n",
  );
});

const REJECTED_SETS: {
  name: string;
  key: string;
  value: unknown;
  message: (f: string) => string;
}[] = [
  {
    name: "a wrong type",
    key: "max_rounds",
    value: "ten",
    message: (f) =>
      `Cannot set "max_rounds" in ${f}: "max_rounds" must be an integer >= 1, got "ten": see docs/config.md`,
  },
  {
    name: "an unknown key",
    key: "tool_permission.bsh",
    value: "allow",
    message: (f) =>
      `Cannot set "tool_permission.bsh" in ${f}: unknown key: did you mean "tool_permission.bash"?`,
  },
  {
    name: "a bad entry beneath a mapping",
    key: "modes.review.tool_permission.edit",
    value: "maybe",
    message: (f) =>
      `Cannot load ${f}: "modes" at "/review/tool_permission/edit" must be one of "allow", "ask", "deny" or a list of strings, got "maybe": see docs/config.md`,
  },
  {
    name: "a path beneath a scalar key",
    key: "max_rounds.value",
    value: 3,
    message: (f) =>
      `Cannot set "max_rounds.value" in ${f}: "max_rounds" holds one value, not keys: use "max_rounds" itself`,
  },
];

for (const { name, key, value, message } of REJECTED_SETS) {
  Deno.test(`setConfigValue rejects ${name} and leaves the file untouched`, async () => {
    await using cfg = await configFile(COMMENTED);
    await assert.rejects(setConfigValue(cfg.file, key, value), new ConfigError(message(cfg.file)));
    assert.equal(await cfg.read(), COMMENTED);
  });
}

Deno.test("setConfigValue refuses to edit a file that is already invalid", async () => {
  const broken = "model: [unclosed\n";
  await using cfg = await configFile(broken);
  await assert.rejects(
    setConfigValue(cfg.file, "max_rounds", 3),
    new ConfigError(
      `Cannot load ${cfg.file}: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1: fix the file's syntax`,
    ),
  );
  assert.equal(await cfg.read(), broken);
});

Deno.test("setConfigValue writes through a symlinked config file", async () => {
  await using cfg = await configFile();
  const real = cfg.file.replace(/config\.yaml$/, "dotfiles.yaml");
  await Deno.mkdir(join(cfg.file, ".."), { recursive: true });
  await Deno.writeTextFile(real, "model: a\n");
  await Deno.symlink(real, cfg.file);
  await setConfigValue(cfg.file, "model", "b");
  assert.equal((await Deno.lstat(cfg.file)).isSymlink, true);
  assert.equal(await Deno.readTextFile(real), "model: b\n");
});

Deno.test("unsetConfigValue removes the key and mappings it leaves empty", async () => {
  await using cfg = await configFile(COMMENTED);
  assert.equal(await unsetConfigValue(cfg.file, "tool_permission.read"), true);
  assert.equal(await cfg.read(), "# my settings\nmodel: gpt-x # the model\n");
  assert.equal(await unsetConfigValue(cfg.file, "tool_permission.read"), false);
  assert.equal(await unsetConfigValue(cfg.file, "model"), true);
  assert.equal(await cfg.read(), "");
});

Deno.test("unsetConfigValue removes flat and nested spellings and entries of mappings", async () => {
  await using cfg = await configFile(
    '"tool_permission.bash": ask\ntool_permission: {edit: ask}\nmodes: {a: {}, b: {}}\n',
  );
  assert.equal(await unsetConfigValue(cfg.file, "tool_permission.bash"), true);
  assert.equal(await unsetConfigValue(cfg.file, "modes.a"), true);
  assert.equal(await cfg.read(), "tool_permission: { edit: ask }\nmodes: { b: {} }\n");
});

Deno.test("unsetConfigValue leaves a missing file missing", async () => {
  await using cfg = await configFile();
  assert.equal(await unsetConfigValue(cfg.file, "model"), false);
  await assert.rejects(cfg.read(), Deno.errors.NotFound);
});

Deno.test("splitKeyPath finds the table key and the path beneath it", () => {
  assert.deepEqual(splitKeyPath("tool_permission.bash_allow"), {
    key: "tool_permission.bash_allow",
    rest: [],
  });
  assert.deepEqual(splitKeyPath("agents.tester.max_rounds"), {
    key: "agents",
    rest: ["tester", "max_rounds"],
  });
  assert.throws(
    () => splitKeyPath("toolz.deny"),
    new ConfigError('Cannot use "toolz.deny": unknown key: did you mean "tools.deny"?'),
  );
});

const CLI_VALUES: { key: string; text: string; value: unknown }[] = [
  { key: "tool_calling", text: "false", value: false },
  { key: "max_rounds", text: "3", value: 3 },
  { key: "temperature", text: "0.5", value: 0.5 },
  { key: "temperature", text: "null", value: null },
  { key: "tools.deny", text: "[bash, web_fetch]", value: ["bash", "web_fetch"] },
  { key: "tools.deny", text: '["bash"]', value: ["bash"] },
  {
    key: "modes",
    text: '{"x": {"tool_permission": {"bash": "deny"}}}',
    value: {
      x: { tool_permission: { bash: "deny" } },
    },
  },
  { key: "model", text: "gpt-4o", value: "gpt-4o" },
  { key: "model", text: "4", value: "4" },
  { key: "model", text: "true", value: "true" },
  {
    key: "system_prompt",
    text: "Be brief: answer in [one] line",
    value: "Be brief: answer in [one] line",
  },
  { key: "reasoning", text: "", value: "" },
  { key: "max_rounds", text: "ten", value: "ten" },
];

for (const { key, text, value } of CLI_VALUES) {
  Deno.test(`parseCliValue reads ${JSON.stringify(text)} for ${key} as ${JSON.stringify(value)}`, async () => {
    assert.deepEqual(await parseCliValue(key, text), value);
  });
}

Deno.test("parseCliValue reports invalid YAML for a non-string key", async () => {
  await assert.rejects(
    parseCliValue("tools.deny", "[bash", "/w/.replio/config.yaml"),
    new ConfigError(
      'Cannot set "tools.deny" in /w/.replio/config.yaml: the value is not valid YAML: Flow sequence must end with a ] at line 1, column 6: quote it or write valid YAML or JSON',
    ),
  );
});
