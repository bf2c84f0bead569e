/**
 * Shared by the MCP interop tests (tests/mcp_interop_test.ts, tests/mcp_serve_interop_test.ts):
 * worktrees whose user trusts them, the official SDK client connected to `replio mcp`, the
 * reference servers as docs/mcp.md configures them, and waits that cannot hang a test.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { loadMcpSdk } from "../../src/mcp/mod.ts";
import { MAIN, runReplio } from "./replio_process.ts";
import { tempWorktree } from "./worktree.ts";
import { HANG_MS } from "./deadline.ts";

/** tests/support/mcp_echo_server.ts. */
export const ECHO_SERVER = new URL("./mcp_echo_server.ts", import.meta.url).pathname;

/** The npm specifiers of the reference servers, as pinned in deno.json (never spelled here). */
const PINNED: Record<string, string> = JSON.parse(
  await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
).imports;
export const EVERYTHING = PINNED["@modelcontextprotocol/server-everything"]!;
export const FILESYSTEM = PINNED["@modelcontextprotocol/server-filesystem"]!;

/** The `mcp_servers` example of docs/mcp.md's "Tested with" section, which these tests run. */
export async function documentedServers(): Promise<
  Record<string, { command: string; args: string[] }>
> {
  const page = await Deno.readTextFile(new URL("../../docs/mcp.md", import.meta.url));
  const section = page.split(/^## /m).find((s) => s.startsWith("Tested with")) ?? "";
  const yaml = /^```yaml\n([\s\S]*?)^```$/m.exec(section)?.[1] ?? "";
  const servers = parseYaml(yaml).mcp_servers;
  // The page names the same pinned versions the tests fetch.
  assert.deepEqual(servers.everything.args.at(2), EVERYTHING);
  assert.deepEqual(servers.files.args.at(2), FILESYSTEM);
  return servers;
}

/**
 * Fetches the reference servers once, so no test spends its connect time downloading. Without
 * this repository's config and lockfile, as the servers themselves run (from a worktree with
 * neither): resolved through deno.lock, the cache would hold the packages but not the registry
 * metadata the servers' own resolution reads, and each server start would go to the network.
 * This process has the machine's proxy and CA settings; replio's children in these tests do not.
 */
let caching: Promise<Deno.CommandOutput> | undefined;

/** Waits for the servers' download (started by the first caller); a failure gives deno's words. */
export async function cached(): Promise<void> {
  caching ??= new Deno.Command(Deno.execPath(), {
    args: ["cache", "--no-config", EVERYTHING, FILESYSTEM],
    stdout: "null",
    stderr: "piped",
  }).output();
  const out = await caching;
  const stderr = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-5).join("\n");
  assert.ok(out.success, `deno cache of the reference servers failed:\n${stderr}`);
}

/**
 * A worktree whose local config is `config`, with its own global config folder, in which the user
 * trusts the worktree (an untrusted folder's mcp_servers never start). Servers may take as long to
 * start as only a hang takes (`mcp_connect_timeout`, unless `config` sets it): the default 10 s
 * is not enough for an npm server's start on a busy machine.
 */
export async function mcpWorktree(
  config: Record<string, unknown>,
  files: Record<string, string> = {},
) {
  const local = { mcp_connect_timeout: HANG_MS / 1000, ...config };
  const wt = await tempWorktree({ ".replio/config.yaml": JSON.stringify(local), ...files });
  await wt.write(".xdg/replio/config.yaml", JSON.stringify({ trusted_folders: [wt.path] }));
  const env = {
    HOME: Deno.env.get("HOME") ?? "",
    XDG_CONFIG_HOME: join(wt.path, ".xdg"),
    NO_COLOR: "1",
    DENO_NO_UPDATE_CHECK: "1",
  };
  return {
    path: wt.path,
    env,
    replio: (...args: string[]) => runReplio(args, { cwd: wt.path, env }),
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
}

/** The official SDK client connected to `replio mcp ...args` in `wt`. */
export async function sdkClient(wt: { path: string; env: Record<string, string> }, args: string[]) {
  const { Client, StdioClientTransport } = await loadMcpSdk();
  const client = new Client({ name: "interop-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "--no-prompt", "-A", MAIN, "mcp", ...args],
      cwd: wt.path,
      env: wt.env,
      stderr: "pipe",
    }),
  );
  return Object.assign(client, { [Symbol.asyncDispose]: () => client.close() });
}

/**
 * Resolves once `tools/list` holds `name`, listing again after each `tools/list_changed`; fails
 * after `seconds` with what was listed, so a server that never comes up fails the test instead
 * of hanging the run.
 */
export async function untilListed(
  client: Awaited<ReturnType<typeof sdkClient>>,
  name: string,
  seconds = 60,
) {
  const { ToolListChangedNotificationSchema } = await loadMcpSdk();
  let changed = Promise.withResolvers<void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve());
  const deadline = AbortSignal.timeout(seconds * 1000);
  for (;;) {
    const pending = changed.promise;
    const { tools } = await client.listTools();
    if (tools.some((t) => t.name === name)) return;
    if (await orLate(pending, deadline) === "late") {
      throw new Error(
        `${name} not listed within ${seconds} s; listed: ${tools.map((t) => t.name).join(", ")}`,
      );
    }
    changed = Promise.withResolvers();
  }
}

/** `promise`'s value, or "late" once `deadline` fires: a wait that cannot hang a test. */
export function orLate<T>(promise: Promise<T>, deadline: AbortSignal): Promise<T | "late"> {
  const late = new Promise<"late">((resolve) => {
    if (deadline.aborted) resolve("late");
    deadline.addEventListener("abort", () => resolve("late"), { once: true });
  });
  return Promise.race([promise, late]);
}

/** The echo server of tests/support/mcp_echo_server.ts as an `mcp_servers` entry. */
export function echoServer(...flags: string[]) {
  return { command: Deno.execPath(), args: ["run", "-A", ECHO_SERVER, ...flags] };
}
