/**
 * `replio mcp add|list|get|remove` as a user runs them: a real global config in a temporary
 * XDG_CONFIG_HOME (with the user's comments), the project's `.replio/config.yaml` with
 * `--project`, the errors, and a server added this way whose tools `replio tools` lists.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

const ECHO_SERVER = new URL("./support/mcp_echo_server.ts", import.meta.url).pathname;

/**
 * The user's global config before the commands touch it. The start-up wait is only a bound
 * (`replio tools` goes on once its servers are up): a busy machine must not leave a tool out.
 */
const GLOBAL = "# my settings\nmodel: mock-model # keep this comment\nmcp_startup_wait: 60\n";

/** A worktree whose global config (in `<worktree>/.xdg`, as runReplio sets) holds {@link GLOBAL}. */
async function commandsWorktree() {
  const wt = await tempWorktree({ "README.md": "# Demo\n", ".xdg/replio/config.yaml": GLOBAL });
  return {
    path: wt.path,
    globalFile: join(wt.path, ".xdg/replio/config.yaml"),
    projectFile: join(wt.path, ".replio/config.yaml"),
    replio: (...args: string[]) => runReplio(args, { cwd: wt.path }),
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
}

Deno.test("replio mcp add, list, get and remove round-trip through the global config, its comments kept", async () => {
  await using wt = await commandsWorktree();
  const added = await wt.replio(
    "mcp",
    "add",
    "echo",
    "--",
    Deno.execPath(),
    "run",
    "-A",
    ECHO_SERVER,
  );
  assert.deepEqual(added, {
    code: 0,
    stdout: `Added MCP server "echo" (stdio) in ${wt.globalFile}: replio tools lists its tools\n`,
    stderr: "",
  });
  const remote = await wt.replio(
    "mcp",
    "add",
    "linear",
    "--url",
    "https://mcp.linear.app/mcp",
    "--header",
    "X-Team=platform",
    "--bearer-token-env-var",
    "LINEAR_TOKEN",
  );
  assert.equal(remote.code, 0, remote.stderr);
  assert.equal(
    await Deno.readTextFile(wt.globalFile),
    GLOBAL + [
      "mcp_servers:",
      "  echo:",
      `    command: ${Deno.execPath()}`,
      "    args:",
      "      - run",
      "      - -A",
      `      - ${ECHO_SERVER}`,
      "  linear:",
      "    url: https://mcp.linear.app/mcp",
      "    headers:",
      "      X-Team: platform",
      "    bearer_token_env_var: LINEAR_TOKEN",
      "",
    ].join("\n"),
  );

  const listed = await wt.replio("mcp", "list");
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trimEnd().split("\n").map((line) => line.split(/ {2,}/));
  assert.deepEqual(lines, [
    ["NAME", "TRANSPORT", "COMMAND OR URL", "FILE", "STATUS"],
    [
      "echo",
      "stdio",
      `${Deno.execPath()} run -A ${ECHO_SERVER}`,
      `${wt.globalFile} (global)`,
      "command found",
    ],
    [
      "linear",
      "http",
      "https://mcp.linear.app/mcp",
      `${wt.globalFile} (global)`,
      "its token variable LINEAR_TOKEN is not set",
    ],
  ]);

  const got = await wt.replio("mcp", "get", "linear");
  assert.deepEqual(got, {
    code: 0,
    stdout: [
      "linear",
      "  transport: http",
      "  url: https://mcp.linear.app/mcp",
      "  headers: X-Team=platform",
      "  bearer_token_env_var: LINEAR_TOKEN",
      `  file: ${wt.globalFile} (global)`,
      "  status: its token variable LINEAR_TOKEN is not set",
      "  remove: replio mcp remove linear",
      "",
    ].join("\n"),
    stderr: "",
  });

  assert.deepEqual(await wt.replio("mcp", "remove", "linear"), {
    code: 0,
    stdout: `Removed MCP server "linear" from ${wt.globalFile}\n`,
    stderr: 'replio: a stored login of "linear" stays until replio mcp logout linear forgets it\n',
  });
  assert.equal((await wt.replio("mcp", "remove", "echo")).code, 0);
  // The file is as the user left it: their comments, and no empty mcp_servers behind.
  assert.equal(await Deno.readTextFile(wt.globalFile), GLOBAL);
  const empty = await wt.replio("mcp", "list");
  assert.deepEqual([empty.code, empty.stdout], [0, ""]);
  assert.match(empty.stderr, /^replio: no MCP servers are configured: add one with replio mcp add/);
});

Deno.test("replio mcp add: a server added this way starts, and replio tools lists its tools", async () => {
  await using wt = await commandsWorktree();
  const added = await wt.replio(
    "mcp",
    "add",
    "echo",
    "--",
    Deno.execPath(),
    "run",
    "-A",
    ECHO_SERVER,
  );
  assert.equal(added.code, 0, added.stderr);
  const tools = await wt.replio("tools", "--json");
  assert.equal(tools.code, 0, tools.stderr);
  const listed = JSON.parse(tools.stdout) as {
    tools: { name: string }[];
    mcp_servers: { name: string; state: string; tools: number }[];
  };
  assert.deepEqual(
    listed.tools.map((t) => t.name).filter((name) => name.startsWith("mcp__")),
    ["mcp__echo__echo", "mcp__echo__add"],
  );
  const called = await wt.replio("tool", "mcp__echo__echo", '{"text":"hi"}', "--yes");
  assert.deepEqual([called.code, called.stdout], [0, "hi\n"]);
});

Deno.test("replio mcp get shows no secret: env and header values with secret names are redacted, a token is named by its variable", async () => {
  await using wt = await commandsWorktree();
  const token = "tok-9f8e7d6c5b4a";
  const stdio = await wt.replio(
    "mcp",
    "add",
    "gh",
    "--env",
    "GITHUB_PERSONAL_ACCESS_TOKEN=ghp_secret123",
    "--env",
    "LOG_LEVEL=debug",
    "--",
    "npx",
    "-y",
    "@modelcontextprotocol/server-github",
  );
  assert.equal(stdio.code, 0, stdio.stderr);
  const remote = await wt.replio(
    "mcp",
    "add",
    "internal",
    "--url",
    "https://mcp.internal.example/mcp",
    "-H",
    "Authorization: Bearer abc123secret",
    "--bearer-token-env-var",
    "INTERNAL_TOKEN",
  );
  assert.equal(remote.code, 0);
  // Written as given (the user's choice), with a warning pointing at the better way.
  assert.match(
    remote.stderr,
    /^replio: the header Authorization holds a secret and is written in .* in plain text: .*--bearer-token-env-var VAR\n$/,
  );

  const keyed = await wt.replio(
    "mcp",
    "add",
    "keyed",
    "--url",
    "https://k.example/mcp?api_key=qsecret77",
  );
  assert.equal(keyed.code, 0);
  // The control: the secrets are really in the file, so their absence below is the redaction's.
  const file = await Deno.readTextFile(wt.globalFile);
  assert.ok(file.includes("ghp_secret123") && file.includes("abc123secret"));
  assert.ok(file.includes("qsecret77"));
  const keyedShown = await wt.replio("mcp", "get", "keyed");
  assert.match(keyedShown.stdout, /\n {2}url: https:\/\/k\.example\/mcp\?api_key=redacted\n/);
  const gh = await wt.replio("mcp", "get", "gh");
  assert.match(
    gh.stdout,
    /\n {2}env: GITHUB_PERSONAL_ACCESS_TOKEN=\[redacted\], LOG_LEVEL=debug\n/,
  );
  // The token's variable is set here: its status says so, its value appears nowhere.
  const internal = await runReplio(["mcp", "get", "internal"], {
    cwd: wt.path,
    env: { INTERNAL_TOKEN: token },
  });
  assert.match(internal.stdout, /\n {2}headers: Authorization=\[redacted\]\n/);
  assert.match(internal.stdout, /\n {2}bearer_token_env_var: INTERNAL_TOKEN\n/);
  assert.match(internal.stdout, /\n {2}status: token from INTERNAL_TOKEN\n/);
  const json = await wt.replio("mcp", "get", "internal", "--json");
  assert.deepEqual(JSON.parse(json.stdout).headers, { Authorization: "[redacted]" });
  const everything = [
    gh,
    internal,
    json,
    keyedShown,
    await wt.replio("mcp", "list"),
    await wt.replio("mcp", "list", "--json"),
  ]
    .map((r) => r.stdout + r.stderr).join("\n");
  for (const secret of ["ghp_secret123", "abc123secret", "qsecret77", token]) {
    assert.ok(!everything.includes(secret), `${secret} is shown nowhere`);
  }
});

Deno.test("replio mcp add --project writes the worktree's file, which loads only in a trusted folder", async () => {
  await using wt = await commandsWorktree();
  const added = await wt.replio(
    "mcp",
    "add",
    "echo",
    "--project",
    "--",
    Deno.execPath(),
    "run",
    "-A",
    ECHO_SERVER,
  );
  assert.equal(added.code, 0);
  assert.equal(
    added.stderr,
    `replio: wrote ${wt.projectFile}, but this folder is not trusted, so its servers do not ` +
      "start: run replio trust to load them\n",
  );
  assert.equal(await Deno.readTextFile(wt.globalFile), GLOBAL, "the global file is untouched");
  const untrusted = await wt.replio("mcp", "list");
  assert.match(
    untrusted.stdout,
    /\necho +stdio +.* \(project\) +not loaded: this folder is not trusted: run replio trust to load it\n$/,
  );
  const trusted = await wt.replio("mcp", "list", "--trust");
  assert.match(trusted.stdout, /\necho +stdio +.* \(project\) +command found\n$/);

  // A global entry of the same name is replaced by the project's in a trusted folder.
  assert.equal((await wt.replio("mcp", "add", "echo", "--", "other-server")).code, 0);
  const both = await wt.replio("mcp", "list", "--trust");
  assert.match(
    both.stdout,
    /\necho +stdio +other-server +.* \(global\) +not loaded: the project's entry of the same name replaces it\n/,
  );

  const wrongFile = await wt.replio("mcp", "remove", "echo");
  assert.equal(wrongFile.code, 0, "the global entry goes");
  const stillProject = await wt.replio("mcp", "remove", "echo");
  assert.deepEqual([stillProject.code, stillProject.stdout], [2, ""]);
  assert.equal(
    stillProject.stderr,
    `replio: Cannot remove MCP server "echo": it is in ${wt.projectFile}, not ${wt.globalFile}: ` +
      "add --project\n",
  );
  assert.equal((await wt.replio("mcp", "remove", "echo", "--project")).code, 0);
});

Deno.test("replio mcp add, get and remove refuse bad input with exit 2 and the fix", async () => {
  await using wt = await commandsWorktree();
  assert.equal((await wt.replio("mcp", "add", "fetch", "--", "uvx", "mcp-server-fetch")).code, 0);
  const cases: [string[], string][] = [
    [
      ["mcp", "add", "fetch", "--", "uvx", "other"],
      `Cannot add MCP server "fetch": already exists in ${wt.globalFile}: use replio mcp remove ` +
      "fetch first, or add --force to replace it",
    ],
    [
      ["mcp", "get", "fecth"],
      'Cannot show MCP server "fecth": no such server (did you mean "fetch"?): replio mcp list shows them',
    ],
    [
      ["mcp", "remove", "fetc"],
      'Cannot remove MCP server "fetc": no such server (did you mean "fetch"?): replio mcp list shows them',
    ],
    [
      ["mcp", "remove", "zzz"],
      'Cannot remove MCP server "zzz": no such server: replio mcp list shows them',
    ],
    [
      ["mcp", "add", "a.b", "--", "x"],
      'Cannot add MCP server "a.b": a name is letters, digits, _ and - only: choose another',
    ],
    [
      ["mcp", "add", "x"],
      'Cannot add MCP server "x": give the command after --, or --url URL: see replio mcp add --help',
    ],
    [
      ["mcp", "add", "x", "--url", "https://a.example/mcp", "--", "cmd"],
      'Cannot add MCP server "x": give either --url URL or -- COMMAND ARGS, not both: see replio mcp add --help',
    ],
    [
      ["mcp", "add", "x", "--url", "ftp://a.example"],
      'Cannot add MCP server "x": --url must be an http:// or https:// URL, got "ftp://a.example": see replio mcp add --help',
    ],
    [
      ["mcp", "add", "x", "--header", "X=1", "--", "cmd"],
      'Cannot add MCP server "x": --header and --bearer-token-env-var are for a server with --url: see replio mcp add --help',
    ],
    [
      ["mcp", "add", "x", "--env", "NOVALUE", "--", "cmd"],
      'Cannot add MCP server "x": --env takes KEY=VALUE, got "NOVALUE": see replio mcp add --help',
    ],
  ];
  for (const [args, message] of cases) {
    const result = await wt.replio(...args);
    assert.deepEqual(
      result,
      { code: 2, stdout: "", stderr: `replio: ${message}\n` },
      args.join(" "),
    );
  }
  // --force is the way past an existing name.
  const forced = await wt.replio("mcp", "add", "fetch", "--force", "--", "uvx", "other");
  assert.equal(forced.code, 0);
  assert.match(forced.stdout, /^Replaced MCP server "fetch" \(stdio\)/);
  assert.match(await Deno.readTextFile(wt.globalFile), /args:\n {6}- other\n/);
});

Deno.test("replio mcp add, list, get and remove each have --help; bare replio mcp --help still serves", async () => {
  await using wt = await commandsWorktree();
  for (const sub of ["add", "list", "get", "remove"]) {
    const help = await wt.replio("mcp", sub, "--help");
    assert.equal(help.code, 0, sub);
    assert.match(help.stdout, new RegExp(`^Usage: replio mcp ${sub} `), sub);
  }
  const mcp = await wt.replio("mcp", "--help");
  assert.match(mcp.stdout, /\n {2}add \[options\] <name> \[command\.\.\.\] /);
  assert.match(mcp.stdout, /--http/, "the server's own options stay on replio mcp");
});
