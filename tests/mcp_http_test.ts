/**
 * Remote MCP servers (`mcp_servers` entries with `url`), as real processes: servers built from
 * the SDK's own parts (tests/support/mcp_http_server.ts) on 127.0.0.1 over Streamable HTTP, over
 * the older HTTP+SSE only, and behind a header and a bearer token; replio run as a user runs it,
 * the model the scripted mock. OAuth: tests/mcp_oauth_test.ts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describeProjectSettings, loadConfig } from "../src/config/mod.ts";
import { loadMcpSdk } from "../src/mcp/mod.ts";
import { withDeadline } from "./support/deadline.ts";
import {
  assertNoStack,
  authorizations,
  filesUnder,
  remoteWorktree,
  startHttpServer,
} from "./support/mcp_http_process.ts";
import { startMockModel } from "./support/mock_model.ts";
import { childEnv, MAIN } from "./support/replio_process.ts";

Deno.test("mcp_servers url: replio tools lists a Streamable HTTP server's tools and replio run calls one", async () => {
  await using server = await startHttpServer(["--name", "remote"]);
  await using wt = await remoteWorktree({ remote: { url: server.url } });

  const listed = await wt.replio(["tools", "--json"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(listed.stderr, "");
  const listing = JSON.parse(listed.stdout);
  assert.deepEqual(listing.mcp_servers, [{ name: "remote", state: "ready", tools: 1 }]);
  const tool = listing.tools.find((t: { name: string }) => t.name === "mcp__remote__whoami");
  assert.equal(tool.description, "Say which server answers and over which transport");
  assert.equal(tool.isolation, "none");

  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__remote__whoami", arguments: {} }] },
    { text: "It is the remote server." },
  ]);
  const ran = await wt.replio([
    "run",
    "--base-url",
    mock.baseUrl,
    "--model",
    "mock-model",
    "--yes",
    "who answers?",
  ]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, "It is the remote server.\n");
  assert.equal(mock.requests[1]!.messages.at(-1)!.content, "remote over streamable-http");
  assert.deepEqual(mock.violations, []);
});

Deno.test("mcp_servers url: a server with only the older HTTP+SSE transport is reached by the fallback", async () => {
  await using server = await startHttpServer(["--sse", "--name", "old"]);
  await using wt = await remoteWorktree({ old: { url: server.url } });

  const called = await wt.replio(["tool", "mcp__old__whoami", "{}", "--yes"]);
  assert.equal(called.code, 0, called.stderr);
  assert.equal(called.stdout, "old over sse\n");
  const requests = (await server.log()).map((r) => `${r.method} ${r.path.split("?")[0]}`);
  // Streamable HTTP first (refused: the route does not exist), then the SSE stream and its posts.
  assert.deepEqual(requests.slice(0, 3), ["POST /mcp", "GET /mcp", "POST /messages"]);
});

Deno.test("mcp_servers url: a server that forgot the session fails the running call, and the next call connects again", async () => {
  await using server = await startHttpServer(["--name", "remote"]);
  await using wt = await remoteWorktree({ remote: { url: server.url } });
  // One replio process throughout: replio mcp, spoken to by the SDK's client.
  const { Client, StdioClientTransport, ToolListChangedNotificationSchema } = await loadMcpSdk();
  const client = new Client({ name: "test", version: "1.0.0" });
  const listChanged = Promise.withResolvers<void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged.resolve());
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: ["run", "--no-prompt", "-A", MAIN, "mcp", "--yes"],
      cwd: wt.path,
      env: childEnv(wt.path, wt.env),
      stderr: "pipe",
    }),
  );
  try {
    const call = () => client.callTool({ name: "mcp__remote__whoami", arguments: {} });
    // The server's tools join once it is up, announced with tools/list_changed.
    const listed = async () =>
      (await client.listTools()).tools.some((t) => t.name === "mcp__remote__whoami");
    if (!await listed()) {
      await withDeadline(listChanged.promise, "replio mcp to announce the remote server's tools");
      assert.ok(await listed());
    }
    const text = (result: Awaited<ReturnType<typeof call>>) =>
      (result.content as { text: string }[])[0]!.text;
    assert.equal(text(await call()), "remote over streamable-http");

    await server.forgetSessions();
    const failed = await call();
    assert.equal(failed.isError, true);
    assert.equal(
      text(failed),
      'Error: MCP server "remote" forgot its session (HTTP 404) while running "whoami": ' +
        "replio connects again on the next call: retry once, or use another tool",
    );
    const again = await call();
    assert.equal(again.isError, false);
    assert.equal(text(again), "remote over streamable-http");
  } finally {
    await client.close();
  }
});

Deno.test("mcp_servers url: a server that is not there is a start failure worded for a person", async () => {
  // A port that was listening a moment ago and is closed now: nothing answers there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.addr.port}/mcp?key=not-shown`;
  listener.close();
  await using wt = await remoteWorktree({ gone: { url } });
  const listed = await wt.replio(["tools"]);
  assert.equal(listed.code, 0);
  const base = url.split("?")[0];
  assert.match(
    listed.stderr,
    new RegExp(
      `^replio: Cannot start MCP server "gone" \\(continuing without its tools\\): cannot reach ` +
        `${base}: .*[Cc]onnection refused.*: check that ${base} is an MCP server's URL, or ` +
        `remove mcp_servers.gone\\n`,
    ),
  );
  assert.doesNotMatch(listed.stderr + listed.stdout, /not-shown/);
  assertNoStack(listed.stderr);
});

Deno.test("mcp_servers headers and bearer_token_env_var reach the server, and the token is shown nowhere", async () => {
  const token = `tok-${crypto.randomUUID()}`;
  await using server = await startHttpServer(
    ["--name", "guarded", "--header", "X-Team=blue", "--bearer-env", "EXPECTED"],
    { EXPECTED: token },
  );
  await using wt = await remoteWorktree({
    guarded: {
      url: server.url,
      headers: { "X-Team": "blue" },
      bearer_token_env_var: "GUARDED_TOKEN",
    },
  });
  const withToken = { GUARDED_TOKEN: token };

  const listed = await wt.replio(["tools"], withToken);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /mcp server guarded: ready, 1 tools/);
  const listedJson = await wt.replio(["tools", "--json"], withToken);
  const called = await wt.replio(["tool", "mcp__guarded__whoami", "{}", "--yes"], withToken);
  assert.equal(called.code, 0, called.stderr);
  assert.equal(called.stdout, "guarded over streamable-http\n");
  await using mock = startMockModel([
    { toolCalls: [{ name: "mcp__guarded__whoami", arguments: {} }] },
    { text: "done" },
  ]);
  const ran = await wt.replio(
    ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "--yes", "call it"],
    withToken,
  );
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(mock.requests[1]!.messages.at(-1)!.content, "guarded over streamable-http");

  // The server saw both on every request.
  const log = await server.log();
  assert.ok(log.length > 0);
  assert.ok(log.every((r) => r.authorization === `Bearer ${token}` && r.header === "blue"));

  // A wrong token is refused by the server (it checks), and the message names the variable.
  const wrong = await wt.replio(["tool", "mcp__guarded__whoami", "{}", "--yes"], {
    GUARDED_TOKEN: "wrong-token-value",
  });
  assert.equal(wrong.code, 1);
  assert.match(
    wrong.stderr,
    /Cannot start MCP server "guarded" \(continuing without its tools\): http:\/\/127\.0\.0\.1:\d+\/mcp refused the token in GUARDED_TOKEN \(HTTP 401\): check the variable's value/,
  );
  // Without the header the server refuses too: it checks that as well.
  await using noHeader = await remoteWorktree({
    guarded: { url: server.url, bearer_token_env_var: "GUARDED_TOKEN" },
  });
  const refused = await noHeader.replio(["tool", "mcp__guarded__whoami", "{}", "--yes"], withToken);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /missing or wrong X-Team/);
  // An unset variable is named, before anything is sent.
  const unset = await wt.replio(["tools"]);
  assert.match(
    unset.stderr,
    /Cannot start MCP server "guarded" \(continuing without its tools\): its bearer token variable GUARDED_TOKEN is not set \(or replio may not read it\): set it before starting replio, or fix mcp_servers\.guarded\.bearer_token_env_var/,
  );

  // The token is in no output, no message to the model, no file replio wrote.
  for (const output of [listed, listedJson, called, ran, wrong, refused, unset]) {
    assert.ok(!output.stdout.includes(token) && !output.stderr.includes(token));
    assertNoStack(output.stderr);
  }
  assert.ok(!JSON.stringify(mock.requests).includes(token));
  const files = await filesUnder(wt.path);
  assert.ok(
    [...files.keys()].some((f) => f.includes(".replio/sessions/")),
    "a session was written",
  );
  for (const [file, text] of files) assert.ok(!text.includes(token), `the token is in ${file}`);
});

Deno.test("a project's url never gets the bearer token of the global entry of the same name", async () => {
  const token = `tok-${crypto.randomUUID()}`;
  await using good = await startHttpServer(["--name", "good", "--bearer-env", "EXPECTED"], {
    EXPECTED: token,
  });
  await using evil = await startHttpServer(["--name", "evil"]);
  const env = { SRV_TOKEN: token };
  // Attack: a trusted project redefines "srv" to point at its own server.
  await using wt = await remoteWorktree(
    { srv: { url: good.url, bearer_token_env_var: "SRV_TOKEN" } },
    { srv: { url: evil.url } },
  );
  const attacked = await wt.replio(["tool", "mcp__srv__whoami", "{}", "--yes", "--trust"], env);
  assert.equal(attacked.code, 0, attacked.stderr);
  assert.equal(attacked.stdout, "evil over streamable-http\n");
  const seen = await authorizations(evil);
  assert.ok(seen.length > 0);
  assert.deepEqual(seen.filter((a) => a !== null), []);

  // Control: had the entry kept the global token setting, the server would have received it.
  await using control = await remoteWorktree({
    srv: { url: evil.url, bearer_token_env_var: "SRV_TOKEN" },
  });
  const sent = await control.replio(["tool", "mcp__srv__whoami", "{}", "--yes"], env);
  assert.equal(sent.code, 0, sent.stderr);
  assert.ok((await authorizations(evil)).includes(`Bearer ${token}`));
});

Deno.test("an untrusted project's url is never contacted", async () => {
  await using server = await startHttpServer(["--name", "project"]);
  await using wt = await remoteWorktree({}, { project: { url: server.url } });
  const untrusted = await wt.replio(["tools"]);
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.match(untrusted.stderr, /ignored \.replio\/config\.yaml \(mcp_servers\)/);
  assert.deepEqual(await server.log(), []);
  // What the REPL's trust question lists for it.
  const config = await loadConfig({ worktree: wt.path, paths: { global: null, local: wt.local } });
  assert.deepEqual(describeProjectSettings(config.trust.ignored!), [
    `MCP servers (remote, contacted): project: ${server.url}`,
  ]);
  // Control: trusted, the same entry is contacted.
  const trusted = await wt.replio(["tools", "--trust"]);
  assert.match(trusted.stdout, /mcp server project: ready, 1 tools/);
  assert.ok((await server.log()).length > 0);
});

Deno.test("mcp_servers entries need exactly one of command and url, and only their own keys", async () => {
  const cases: [Record<string, unknown>, string][] = [
    [
      { both: { command: "x", url: "https://example.com/mcp" } },
      '"mcp_servers" at "/both" must set "command" (a server replio starts over stdio) or ' +
      '"url" (a remote server), got both: see docs/mcp.md',
    ],
    [
      { none: { args: ["a"] } },
      '"mcp_servers" at "/none" must set "command" (a server replio starts over stdio) or ' +
      '"url" (a remote server), got neither: see docs/mcp.md',
    ],
    [
      { mixed: { command: "x", bearer_token_env_var: "T" } },
      '"mcp_servers" at "/mixed" sets "bearer_token_env_var", which only a server with "url" ' +
      "uses: remove it: see docs/mcp.md",
    ],
    [
      { mixed: { url: "https://example.com/mcp", cwd: "tools" } },
      '"mcp_servers" at "/mixed" sets "cwd", which only a server with "command" uses: remove ' +
      "it: see docs/mcp.md",
    ],
  ];
  for (const [servers, problem] of cases) {
    await using wt = await remoteWorktree(servers);
    const listed = await wt.replio(["tools"]);
    assert.equal(listed.code, 2);
    assert.equal(
      listed.stderr,
      `replio: Cannot load ${join(wt.path, ".xdg/replio/config.yaml")}: ${problem}\n`,
    );
  }
});
