/**
 * Remote MCP servers (`mcp_servers` entries with `url`), as real processes: servers built from
 * the SDK's own parts (tests/support/mcp_http_server.ts) on 127.0.0.1 over Streamable HTTP, over
 * the older HTTP+SSE only, behind a header and a bearer token, and behind OAuth (the SDK's
 * authorization router over its demo provider); replio run as a user runs it, the model the
 * scripted mock.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describeProjectSettings, loadConfig } from "../src/config/mod.ts";
import { loginFileName } from "../src/mcp/oauth_store.ts";
import {
  driveLogin,
  filesUnder,
  type HttpServerProcess,
  startHttpServer,
} from "./support/mcp_http_process.ts";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { tempWorktree } from "./support/worktree.ts";

/**
 * A worktree whose global config (`.xdg`) holds `servers` as mcp_servers and whose state folder
 * (`.state`, where logins are kept) is its own.
 */
async function remoteWorktree(servers: Record<string, unknown>, project?: Record<string, unknown>) {
  const wt = await tempWorktree({
    ".xdg/replio/config.yaml": JSON.stringify({ mcp_servers: servers }),
    ...(project ? { ".replio/config.yaml": JSON.stringify({ mcp_servers: project }) } : {}),
  });
  const env = { XDG_STATE_HOME: join(wt.path, ".state") };
  return {
    path: wt.path,
    env,
    logins: join(wt.path, ".state", "replio", "mcp-logins"),
    local: join(wt.path, ".replio", "config.yaml"),
    replio: (args: string[], extra: Record<string, string> = {}) =>
      runReplio(args, { cwd: wt.path, env: { ...env, ...extra } }),
    [Symbol.asyncDispose]: () => wt[Symbol.asyncDispose](),
  };
}

/** No Deno stack trace ("    at file:///…") in what a person reads. */
function assertNoStack(text: string): void {
  assert.doesNotMatch(text, /^\s+at .*(file|ext):\/\//m, text);
}

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

Deno.test("mcp_servers OAuth: no login is an error naming replio mcp login; login, refresh and logout", async () => {
  await using server = await startHttpServer(["--oauth", "--name", "secure"]);
  await using wt = await remoteWorktree({ secure: { url: server.url } });
  const needsLogin = 'Cannot start MCP server "secure" (continuing without its tools): it ' +
    "needs a login: run `replio mcp login secure`";

  // Headless, unauthenticated: a clear error, no browser, no client registered.
  const listed = await wt.replio(["tools"]);
  assert.equal(listed.code, 0);
  assert.equal(listed.stderr, `replio: ${needsLogin}\n`);
  assert.match(listed.stdout, /mcp server secure: failed: /);
  const called = await wt.replio(["tool", "mcp__secure__whoami", "{}", "--yes"]);
  assert.equal(called.code, 1);
  assert.equal(called.stderr, `replio: ${needsLogin}\n`);
  await using mock = startMockModel([{ text: "No tool needed." }]);
  const ran = await wt.replio(
    ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "--yes", "hi"],
  );
  assert.equal(ran.code, 0, ran.stderr);
  assert.ok(ran.stderr.includes(needsLogin), ran.stderr);
  for (const output of [listed, called, ran]) assertNoStack(output.stderr);
  const before = await server.log();
  assert.ok(!before.some((r) => r.path.startsWith("/register") || r.path.startsWith("/authorize")));

  // The login: the test is the browser. Another page first tries to slip in a code of its own
  // (login CSRF): refused, as it lacks the login's state; the real redirect, which has it, counts.
  const login = await driveLogin(wt.path, "secure", wt.env, { forgeFirst: true });
  assert.equal(login.code, 0, login.stderr);
  assert.equal(login.forgedStatus, 400);
  assert.equal(login.callbackStatus, 200);
  assert.equal(
    login.stdout,
    'Logged in to MCP server "secure" (1 tools): replio renews the login by itself; ' +
      "`replio mcp logout secure` forgets it\n",
  );
  const authorization = new URL(login.authorizationUrl);
  assert.equal(authorization.searchParams.get("code_challenge_method"), "S256");
  assert.match(
    authorization.searchParams.get("redirect_uri")!,
    /^http:\/\/127\.0\.0\.1:\d+\/callback$/,
  );
  assert.ok((await server.log()).some((r) => r.method === "POST" && r.path === "/register"));
  const file = join(wt.logins, await loginFileName("secure", server.url));
  assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
  assert.equal((await Deno.stat(wt.logins)).mode! & 0o777, 0o700);
  const stored = () => Deno.readTextFile(file).then((t) => JSON.parse(t).tokens.access_token);
  const firstToken = await stored();

  const works = await wt.replio(["tool", "mcp__secure__whoami", "{}", "--yes"]);
  assert.equal(works.code, 0, works.stderr);
  assert.equal(works.stdout, "secure over streamable-http\n");

  // The server expires the token: replio refreshes it on the 401 and the call goes through.
  await server.setTokenLifetime(0);
  await server.expireTokens();
  const refreshed = await wt.replio(["tool", "mcp__secure__whoami", "{}", "--yes"]);
  assert.equal(refreshed.code, 0, refreshed.stderr);
  assert.equal(refreshed.stdout, "secure over streamable-http\n");
  const secondToken = await stored();
  assert.notEqual(secondToken, firstToken);
  assert.ok((await server.log()).some((r) => r.grant === "refresh_token"));

  // That token said it lasts 0 s: the next run refreshes before its first request.
  const seen = (await server.log()).length;
  const early = await wt.replio(["tool", "mcp__secure__whoami", "{}", "--yes"]);
  assert.equal(early.code, 0, early.stderr);
  const run = (await server.log()).slice(seen);
  const refreshAt = run.findIndex((r) => r.grant === "refresh_token");
  const firstMcp = run.findIndex((r) => r.path === "/mcp");
  assert.ok(refreshAt !== -1 && refreshAt < firstMcp, JSON.stringify(run));
  assert.ok(run.every((r) => r.authorization !== `Bearer ${secondToken}`));
  assert.equal(run[firstMcp]!.authorization, `Bearer ${await stored()}`);

  // No token in any output or session.
  const token = await stored();
  for (const output of [login, works, refreshed, early]) {
    assert.ok(!output.stdout.includes(token) && !output.stderr.includes(token));
  }

  // Logout forgets it, and the error comes back.
  const logout = await wt.replio(["mcp", "logout", "secure"]);
  assert.equal(logout.code, 0, logout.stderr);
  assert.equal(
    logout.stdout,
    `Logged out of MCP server "secure": forgot its login to ${server.url}\n`,
  );
  assert.deepEqual(await Array.fromAsync(Deno.readDir(wt.logins)), []);
  const after = await wt.replio(["tool", "mcp__secure__whoami", "{}", "--yes"]);
  assert.equal(after.code, 1);
  assert.equal(after.stderr, `replio: ${needsLogin}\n`);
  const again = await wt.replio(["mcp", "logout", "secure"]);
  assert.equal(again.code, 0);
  assert.equal(
    again.stderr,
    'replio: no login of MCP server "secure" is stored: nothing to forget\n',
  );
});

Deno.test("mcp_servers OAuth: a login whose refresh is refused says to log in again", async () => {
  await using server = await startHttpServer(["--oauth", "--name", "secure"]);
  await using wt = await remoteWorktree({ secure: { url: server.url } });
  assert.equal((await driveLogin(wt.path, "secure", wt.env)).code, 0);
  // The stored refresh token is one the server never issued: refused as invalid_grant.
  const file = join(wt.logins, await loginFileName("secure", server.url));
  const login = JSON.parse(await Deno.readTextFile(file));
  login.tokens.refresh_token = "revoked";
  await Deno.writeTextFile(file, JSON.stringify(login));
  await server.expireTokens();
  const called = await wt.replio(["tool", "mcp__secure__whoami", "{}", "--yes"]);
  assert.equal(called.code, 1);
  assert.match(called.stderr, /it needs a login: run `replio mcp login secure`/);
  assertNoStack(called.stderr);
});

/** The Authorization headers `server` received. */
async function authorizations(server: HttpServerProcess): Promise<(string | null)[]> {
  return (await server.log()).map((r) => r.authorization);
}

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

Deno.test("a project's url never gets the OAuth login of the global entry of the same name", async () => {
  await using secure = await startHttpServer(["--oauth", "--name", "secure"]);
  await using evil = await startHttpServer(["--name", "evil"]);
  await using wt = await remoteWorktree({ srv: { url: secure.url } }, { srv: { url: evil.url } });
  // Logged in to the global entry's server (the project's settings not loaded for the login).
  const login = await driveLogin(wt.path, "srv", wt.env);
  assert.equal(login.code, 0, login.stderr);
  const file = join(wt.logins, await loginFileName("srv", secure.url));
  const token = JSON.parse(await Deno.readTextFile(file)).tokens.access_token as string;

  const attacked = await wt.replio(["tool", "mcp__srv__whoami", "{}", "--yes", "--trust"]);
  assert.equal(attacked.code, 0, attacked.stderr);
  assert.equal(attacked.stdout, "evil over streamable-http\n");
  assert.deepEqual((await authorizations(evil)).filter((a) => a !== null), []);

  // Control: filed under the project's URL too (a store keyed by the name alone would find it),
  // the same login goes to that server.
  await Deno.copyFile(file, join(wt.logins, await loginFileName("srv", evil.url)));
  const copy = join(wt.logins, await loginFileName("srv", evil.url));
  const moved = JSON.parse(await Deno.readTextFile(copy));
  await Deno.writeTextFile(copy, JSON.stringify({ ...moved, url: evil.url }));
  const sent = await wt.replio(["tool", "mcp__srv__whoami", "{}", "--yes", "--trust"]);
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

Deno.test("replio mcp login refuses what is no remote server, and says when no login is needed", async () => {
  await using server = await startHttpServer(["--name", "open"]);
  await using wt = await remoteWorktree({
    open: { url: server.url },
    local: { command: "true" },
    token: { url: server.url, bearer_token_env_var: "T" },
  });
  const unknown = await wt.replio(["mcp", "login", "nosuch"]);
  assert.equal(unknown.code, 2);
  assert.equal(
    unknown.stderr,
    'replio: Cannot log in to MCP server "nosuch": mcp_servers has no entry "nosuch" (it has ' +
      '"open", "local", "token"): add one with its url (docs/mcp.md)\n',
  );
  const stdio = await wt.replio(["mcp", "login", "local"]);
  assert.equal(stdio.code, 2);
  assert.match(stdio.stderr, /it runs as a command on stdio, which needs no login/);
  const bearer = await wt.replio(["mcp", "login", "token"]);
  assert.equal(bearer.code, 2);
  assert.match(bearer.stderr, /it uses the bearer token in T: remove bearer_token_env_var/);
  const open = await wt.replio(["mcp", "login", "open", "--no-browser"]);
  assert.equal(open.code, 0, open.stderr);
  assert.equal(
    open.stderr,
    'replio: MCP server "open" answered without a login: nothing to do, its tools work as they are\n',
  );
});
