/**
 * Processes replio starts do not inherit its secrets: a prompt-injected `env` in run_command, a
 * project's test script or an MCP server would otherwise read the model's API key and every
 * token in the user's shell (issue 11, docs/security.md § Child processes). Each test runs
 * replio as a user does, with secrets in its environment, and reads what the child saw; the
 * control shows a plain child of the same environment sees them all.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { Config } from "../../src/config/mod.ts";
import { childEnv, isWithheld } from "../../src/plugins/child_env.ts";
import { runReplio } from "../support/replio_process.ts";
import { tempWorktree } from "../support/worktree.ts";

const ECHO_SERVER = new URL("../support/mcp_echo_server.ts", import.meta.url).pathname;

/** Variables replio runs with: secrets by name, by configured key name, and plain ones. */
const ENV = {
  OPENAI_API_KEY: "sk-openai-value",
  GITHUB_TOKEN: "ghp-github-value",
  MY_SECRET: "my-secret-value",
  DB_PASSWORD: "db-password-value",
  // Named by api_key_env and web.brave_api_key_env below: no secret-looking name.
  ACME_LLM_AUTH: "acme-llm-value",
  BRAVE_SEARCH_AUTH: "brave-search-value",
  // Listed in shell_env.keep.
  DEPLOY_TOKEN: "deploy-token-value",
  PLAIN_SETTING: "plain-value",
  // What a server that npx or deno downloads needs behind a corporate proxy.
  HTTPS_PROXY: "http://proxy.example:3128",
  SSL_CERT_FILE: "/etc/ssl/certs/corporate.pem",
};

const WITHHELD = [
  "OPENAI_API_KEY",
  "GITHUB_TOKEN",
  "MY_SECRET",
  "DB_PASSWORD",
  "ACME_LLM_AUTH",
  "BRAVE_SEARCH_AUTH",
] as const;

const CONFIG = `api_key_env: ACME_LLM_AUTH
web:
  brave_api_key_env: BRAVE_SEARCH_AUTH
shell_env:
  keep: [DEPLOY_TOKEN]
dev:
  test_cmd: env
`;

function assertScrubbed(seen: string, what: string): void {
  for (const name of WITHHELD) {
    assert.ok(!seen.includes(ENV[name]), `${what} must not see ${name}:\n${seen}`);
    assert.ok(!new RegExp(`^${name}=`, "m").test(seen), `${what} must not see ${name}`);
  }
  assert.match(seen, /^PLAIN_SETTING=plain-value$/m, `${what} keeps plain variables`);
  assert.match(seen, /^DEPLOY_TOKEN=deploy-token-value$/m, `${what} gets shell_env.keep names`);
}

/** Runs replio trusting the worktree: its config (api_key_env, shell_env.keep) is the setup. */
async function replioIn(cwd: string, ...args: string[]): Promise<string> {
  const run = await runReplio([...args, "--trust"], { cwd, env: ENV });
  assert.equal(run.code, 0, run.stderr);
  return run.stdout;
}

Deno.test("run_command's env shows no secret of replio's environment", async () => {
  await using wt = await tempWorktree({ ".replio/config.yaml": CONFIG });
  const out = await replioIn(wt.path, "tool", "run_command", '{"command":"env"}', "--yes");
  assertScrubbed(out, "run_command");
});

Deno.test("code_test's command shows no secret of replio's environment", async () => {
  await using wt = await tempWorktree({ ".replio/config.yaml": CONFIG });
  const out = await replioIn(wt.path, "tool", "code_test", "{}", "--yes");
  assert.match(out, /^\$ env$/m);
  assertScrubbed(out, "code_test");
});

Deno.test("an MCP server started over stdio sees no secret, its plain variables and its configured env", async () => {
  await using wt = await tempWorktree();
  const seen = join(wt.path, "server_env.txt");
  const server = `env > '${seen}'; exec '${Deno.execPath()}' run -A '${ECHO_SERVER}'`;
  await wt.write(
    ".replio/config.yaml",
    CONFIG +
      `mcp_servers:\n  envdump:\n    command: sh\n    args: ["-c", ${JSON.stringify(server)}]\n` +
      `    env:\n      SERVER_TOKEN: configured-for-the-server\n` +
      // replio tools waits this long for servers to start, then lists without the slow ones: the
      // default second is too short for a busy machine, a minute only a hang outlasts.
      "mcp_startup_wait: 60\nmcp_connect_timeout: 60\n",
  );
  const tools = await replioIn(wt.path, "tools", "--json");
  assert.match(tools, /mcp__envdump__echo/);
  const env = await Deno.readTextFile(seen);
  assert.match(env, /^SERVER_TOKEN=configured-for-the-server$/m, "its own env entries stay");
  assertScrubbed(env, "an MCP server");
  assert.match(env, /^HTTPS_PROXY=http:\/\/proxy\.example:3128$/m, "the proxy reaches servers");
  assert.match(env, /^SSL_CERT_FILE=\/etc\/ssl\/certs\/corporate\.pem$/m, "so does the CA file");
});

Deno.test("control: a plain child of the same environment sees every secret", async () => {
  const out = await new Deno.Command("sh", {
    args: ["-c", "env"],
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", ...ENV },
  }).output();
  const seen = new TextDecoder().decode(out.stdout);
  for (const name of WITHHELD) assert.match(seen, new RegExp(`^${name}=${ENV[name]}$`, "m"));
});

Deno.test("isWithheld: secret-looking names, replio's key names, shell_env.keep wins", () => {
  const config = Config.defaults().with({
    api_key_env: "ACME_LLM_AUTH",
    "shell_env.keep": ["NPM_TOKEN"],
  });
  for (const name of ["OPENAI_API_KEY", "gh_token", "AWS_SECRET_ACCESS_KEY", "PGPASSWORD"]) {
    assert.equal(isWithheld(name, config), true, name);
  }
  assert.equal(isWithheld("GOOGLE_APPLICATION_CREDENTIALS", config), true);
  assert.equal(isWithheld("ACME_LLM_AUTH", config), true, "api_key_env");
  assert.equal(isWithheld("BRAVE_API_KEY", config), true, "web.brave_api_key_env's default");
  assert.equal(isWithheld("NPM_TOKEN", config), false, "shell_env.keep");
  // git's numbered settings travel together: dropping KEY_0 would break every git.
  assert.equal(isWithheld("GIT_CONFIG_KEY_0", config), false);
  for (const name of ["PATH", "HOME", "LANG", "SSH_AUTH_SOCK", "DENO_DIR"]) {
    assert.equal(isWithheld(name, config), false, name);
  }
});

Deno.test("childEnv: the caller's extra variables are kept whatever their names", () => {
  const env = childEnv(Config.defaults(), { GIT_ASKPASS_TOKEN: "x" });
  assert.equal(env.GIT_ASKPASS_TOKEN, "x");
  assert.equal(env.PATH, Deno.env.get("PATH"));
});
