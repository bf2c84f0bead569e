/**
 * Remote MCP servers behind OAuth, as real processes: the SDK's authorization router over its
 * demo provider (tests/support/mcp_http_server.ts --oauth), `replio mcp login` driven with the
 * test as the browser, tokens used, refreshed and forgotten; and what a project's entry of the
 * same name can never get.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loginFileName } from "../src/mcp/oauth_store.ts";
import {
  assertNoStack,
  authorizations,
  driveLogin,
  filesUnder,
  remoteWorktree,
  startHttpServer,
} from "./support/mcp_http_process.ts";
import { startMockModel } from "./support/mock_model.ts";

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

  // A turn that calls the tool; then no token (access or refresh) is in any output, in what the
  // model got, or in any file but the login's own.
  await using model = startMockModel([
    { toolCalls: [{ name: "mcp__secure__whoami", arguments: {} }] },
    { text: "done" },
  ]);
  const turn = await wt.replio(
    ["run", "--base-url", model.baseUrl, "--model", "mock-model", "--yes", "who?"],
  );
  assert.equal(turn.code, 0, turn.stderr);
  assert.equal(model.requests[1]!.messages.at(-1)!.content, "secure over streamable-http");
  // Every access token the server was ever sent (each run renewed it), and the refresh token.
  const sent = (await server.log()).map((r) => r.authorization?.replace(/^Bearer /, ""));
  const secrets = [
    ...new Set(sent.filter((t): t is string => t !== undefined && t !== null)),
    JSON.parse(await Deno.readTextFile(file)).tokens.refresh_token as string,
  ];
  assert.ok(secrets.length >= 4, `tokens: ${secrets.length}`);
  for (const output of [login, works, refreshed, early, turn]) {
    for (const secret of secrets) {
      assert.ok(!output.stdout.includes(secret) && !output.stderr.includes(secret));
    }
  }
  assert.ok(!secrets.some((secret) => JSON.stringify(model.requests).includes(secret)));
  const files = await filesUnder(wt.path);
  assert.ok(
    [...files.keys()].some((f) => f.includes(".replio/sessions/")),
    "a session was written",
  );
  for (const [path, text] of files) {
    if (path === file) continue;
    for (const secret of secrets) assert.ok(!text.includes(secret), `a token is in ${path}`);
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
