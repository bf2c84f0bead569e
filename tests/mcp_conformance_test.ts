/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned below) against a
 * live `replio mcp --http` on 127.0.0.1: every server scenario that applies to an agent passes,
 * and every other one fails only for its documented reason (docs/mcp.md, "Conformance"). The
 * suite needs Node 22 and runs under Deno; .ci/run caches it, and where it is neither cached nor
 * fetchable from npm the test is skipped, saying so in its name.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withDeadline } from "./support/deadline.ts";
import { startMcpHttp } from "./support/mcp_http_replio.ts";
import { tempWorktree } from "./support/worktree.ts";

/** The suite, pinned: a new version may add scenarios, which docs/mcp.md must then judge. */
const SUITE = "npm:@modelcontextprotocol/conformance@0.1.16";

/** Why a scenario does not apply to replio, as the suite's failure message shows it. */
const NOT_SERVED = /^Failed: MCP error -32601: Method not found: "(resources|prompts|completion)\//;
const TEST_TOOL = /^Failed: MCP error -32602: Unknown tool "test_|^Tool 'json_schema_2020_12_tool'/;

/** Each server scenario of the suite and what replio gets: "pass", or the reason it fails. */
const EXPECTED: Record<string, "pass" | RegExp> = {
  "server-initialize": "pass",
  "logging-set-level": "pass",
  "ping": "pass",
  "tools-list": "pass",
  "server-sse-polling": "pass",
  "server-sse-multiple-streams": "pass",
  "dns-rebinding-protection": "pass",
  "completion-complete": NOT_SERVED,
  "tools-call-simple-text": TEST_TOOL,
  "tools-call-image": TEST_TOOL,
  "tools-call-audio": TEST_TOOL,
  "tools-call-embedded-resource": TEST_TOOL,
  "tools-call-mixed-content": TEST_TOOL,
  "tools-call-with-logging": TEST_TOOL,
  "tools-call-error": TEST_TOOL,
  "tools-call-with-progress": TEST_TOOL,
  "tools-call-sampling": TEST_TOOL,
  "tools-call-elicitation": TEST_TOOL,
  "json-schema-2020-12": TEST_TOOL,
  "elicitation-sep1034-defaults": TEST_TOOL,
  "elicitation-sep1330-enums": TEST_TOOL,
  "resources-list": NOT_SERVED,
  "resources-read-text": NOT_SERVED,
  "resources-read-binary": NOT_SERVED,
  "resources-templates-read": NOT_SERVED,
  "resources-subscribe": NOT_SERVED,
  "resources-unsubscribe": NOT_SERVED,
  "prompts-list": NOT_SERVED,
  "prompts-get-simple": NOT_SERVED,
  "prompts-get-with-args": NOT_SERVED,
  "prompts-get-embedded-resource": NOT_SERVED,
  "prompts-get-with-image": NOT_SERVED,
};

/**
 * Set on top of the test's environment, which the suite keeps: npm may be reached only through
 * the machine's proxy or certificates.
 */
const ENV = { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", RUST_BACKTRACE: "0" };

/**
 * Runs the suite with `args` from a folder of its own (`--no-config`: replio's deno.json and lock
 * stay out of it); `cachedOnly` forbids any download.
 */
function suiteCommand(args: string[], cwd: string, cachedOnly = true): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-config", "-A", ...(cachedOnly ? ["--cached-only"] : []), SUITE, ...args],
    cwd,
    env: ENV,
    stdout: "piped",
    stderr: "piped",
  });
}

/** Null when the suite is cached (fetched from npm now if need be), else why it is not. */
async function unavailable(): Promise<string | null> {
  const cwd = await Deno.makeTempDir({ prefix: "replio_conformance_" });
  try {
    if ((await suiteCommand(["--version"], cwd).output()).success) return null;
    const fetched = await new Deno.Command(Deno.execPath(), {
      args: ["cache", "--no-config", SUITE],
      cwd,
      env: ENV,
      stdout: "null",
      stderr: "piped",
    }).output();
    if (fetched.success) return null;
    const why = new TextDecoder().decode(fetched.stderr).trim().split("\n").at(-1);
    return `${SUITE} is not cached and could not be fetched from npm (${why})`;
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

/** The outcome of each scenario the suite saved in `dir`: "pass", or its first failure. */
async function readOutcomes(dir: string): Promise<Record<string, string>> {
  const outcomes: Record<string, string> = {};
  for await (const entry of Deno.readDir(dir)) {
    // The suite names each folder server-<scenario>-<ISO time>.
    const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name)?.[1];
    assert.ok(scenario, `unexpected result folder ${entry.name}`);
    const checks = JSON.parse(
      await Deno.readTextFile(join(dir, entry.name, "checks.json")),
    ) as { status: string; errorMessage?: string }[];
    const failed = checks.find((check) => check.status === "FAILURE");
    outcomes[scenario] = failed ? failed.errorMessage ?? "failed without a message" : "pass";
  }
  return outcomes;
}

const missing = await unavailable();

Deno.test({
  name: "MCP conformance suite: replio mcp --http passes every server scenario that applies" +
    (missing ? ` (skipped: ${missing})` : ""),
  ignore: missing !== null,
  async fn() {
    await using wt = await tempWorktree();
    await using server = await startMcpHttp(wt.path);
    const out = await Deno.makeTempDir({ prefix: "replio_conformance_out_" });
    try {
      const run = await withDeadline(
        suiteCommand(["server", "--url", server.url, "--suite", "all", "-o", out], out).output(),
        "the conformance suite to finish",
      );
      const log = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
      const outcomes = await readOutcomes(out);
      assert.deepEqual(Object.keys(outcomes).sort(), Object.keys(EXPECTED).sort(), log);
      const wrong = Object.entries(EXPECTED).filter(([scenario, expected]) =>
        expected === "pass"
          ? outcomes[scenario] !== "pass"
          : !expected.test(outcomes[scenario] ?? "")
      ).map(([scenario]) => `${scenario}: ${outcomes[scenario]}`);
      assert.deepEqual(wrong, [], log);
      // The suite exits 1 because the scenarios that do not apply fail.
      assert.equal(run.code, 1, log);
    } finally {
      await Deno.remove(out, { recursive: true });
    }
  },
});

/**
 * The client scenarios replio passes as a client (`replio tool` headless through an `mcp_servers`
 * url entry, tests/support/conformance_client.ts); docs/mcp.md says why the others fail.
 */
const CLIENT_PASSES = ["initialize", "tools_call", "sse-retry"];

/** tests/support/conformance_client.ts: the command the suite runs with its server's URL. */
const CLIENT = new URL("./support/conformance_client.ts", import.meta.url).pathname;

Deno.test({
  name: "MCP conformance suite: replio as a client passes " + CLIENT_PASSES.join(", ") +
    (missing ? ` (skipped: ${missing})` : ""),
  ignore: missing !== null,
  async fn() {
    const cwd = await Deno.makeTempDir({ prefix: "replio_conformance_client_" });
    try {
      // The suite splits the command on spaces and appends the URL: paths must have none.
      assert.ok(![Deno.execPath(), CLIENT].some((path) => path.includes(" ")), CLIENT);
      for (const scenario of CLIENT_PASSES) {
        const command = `${Deno.execPath()} run --no-prompt -A ${CLIENT}`;
        const run = await withDeadline(
          suiteCommand(["client", "--command", command, "--scenario", scenario], cwd).output(),
          `the conformance client scenario ${scenario}`,
        );
        const log = new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr);
        assert.equal(run.code, 0, `${scenario}:\n${log}`);
      }
    } finally {
      await Deno.remove(cwd, { recursive: true });
    }
  },
});
