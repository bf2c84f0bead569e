/**
 * `replio serve` at the HTTP level: the request body limit (and 413 before `100 Continue`), the
 * bearer token, and browsers (no CORS: a preflight is refused, with or without a token).
 */
import assert from "node:assert/strict";
import { MAX_BODY_BYTES } from "../src/serve/mod.ts";
import { startMockModel } from "./support/mock_model.ts";
import { runReplio } from "./support/replio_process.ts";
import { withDeadline } from "./support/deadline.ts";
import { api, post, serve } from "./support/serve_process.ts";
import { tempWorktree } from "./support/worktree.ts";

Deno.test("replio serve requires the bearer token when REPLIO_SERVE_TOKEN is set", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock, {
    args: ["--host", "0.0.0.0"],
    env: { REPLIO_SERVE_TOKEN: "s3cret-token" },
  });
  assert.match(served.listening, /^listening http:\/\/0\.0\.0\.0:\d+$/);
  const none = await api(served, "/v1/health");
  assert.equal(none.status, 401);
  assert.equal(none.headers.get("www-authenticate"), 'Bearer realm="replio"');
  assert.equal(
    none.body.error.message,
    `Cannot answer: no bearer token: send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
  );
  const wrong = await api(served, "/v1/health", {
    headers: { authorization: "Bearer s3cret-tokem" },
  });
  assert.equal(wrong.status, 401);
  const right = await api(served, "/v1/health", {
    headers: { authorization: "Bearer s3cret-token" },
  });
  assert.equal(right.status, 200);
  assert.equal(right.body.status, "ok");
});

Deno.test("replio serve refuses a body over the limit with 413 and never reads it whole", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const big = JSON.stringify({ path: "x".repeat(MAX_BODY_BYTES) });
  const declared = await post(served, "/v1/tools/file_read", big);
  assert.equal(declared.status, 413);
  assert.deepEqual(declared.body.error, {
    code: "body_too_large",
    message: `Cannot read the request body: it is over the limit of ${MAX_BODY_BYTES} bytes: ` +
      "send a smaller body (shorten the prompt or the history)",
    type: "invalid_request_error",
    param: null,
  });
  // Chunked, so no Content-Length announces the size: the limit holds while reading.
  const chunked = await fetch(served.base + "/v1/turns", {
    method: "POST",
    body: new Blob([big]).stream(),
  });
  assert.equal(chunked.status, 413);
  await chunked.body?.cancel();
  const ended = await served.stop();
  assert.equal(ended.code, 0);
  assert.equal(ended.stderr, "", "a 413 is no internal error");
});

Deno.test("replio serve refuses a blank or spaced REPLIO_SERVE_TOKEN and answers Basic auth with 401", async () => {
  await using wt = await tempWorktree();
  for (
    const [token, problem] of [["   ", "is only whitespace"], ["two words", "contains whitespace"]]
  ) {
    const refused = await runReplio(["serve", "--port", "0"], {
      cwd: wt.path,
      env: { REPLIO_SERVE_TOKEN: token! },
    });
    assert.equal(refused.code, 2);
    assert.equal(
      refused.stderr,
      `replio: Cannot use REPLIO_SERVE_TOKEN: it ${problem}, which no bearer token can carry: ` +
        "set it to a long random secret such as the output of `openssl rand -hex 32`\n",
    );
  }
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock, { env: { REPLIO_SERVE_TOKEN: "s3cret-token" } });
  const basic = await api(served, "/v1/health", {
    headers: { authorization: `Basic ${btoa("me:s3cret-token")}` },
  });
  assert.equal(basic.status, 401);
  assert.equal(
    basic.body.error.message,
    `Cannot answer: the Authorization header uses the "Basic" scheme, and this API takes only ` +
      `a bearer token: send "Authorization: Bearer <the server's REPLIO_SERVE_TOKEN>"`,
  );
});

/**
 * Sends `head` on a fresh connection, then `body` only if the server answers `100 Continue`;
 * returns everything the server wrote until it closed the connection.
 */
async function expectContinue(port: number, head: string, body: string): Promise<string> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const encoder = new TextEncoder();
  await conn.write(encoder.encode(head + "Expect: 100-continue\r\nConnection: close\r\n\r\n"));
  let reply = "";
  const buffer = new Uint8Array(65536);
  let isBodySent = false;
  for (;;) {
    const n = await withDeadline(conn.read(buffer), "the server's next bytes");
    if (n === null) return reply;
    reply += new TextDecoder().decode(buffer.subarray(0, n));
    if (!isBodySent && reply.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
      isBodySent = true;
      await conn.write(encoder.encode(body));
    }
  }
}

Deno.test("replio serve refuses a too-large body with 413 before 100 Continue, so the client never uploads it", async () => {
  await using wt = await tempWorktree({ "a.txt": "x\n" });
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock);
  const port = Number(new URL(served.base).port);
  const head = (length: number) =>
    `POST /v1/tools/file_read HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${length}\r\n`;

  const refused = await expectContinue(port, head(MAX_BODY_BYTES + 1), "");
  assert.match(refused, /^HTTP\/1\.1 413 /, "the first line is the refusal");
  assert.ok(!refused.includes("100 Continue"), refused);
  assert.ok(refused.includes('"code":"body_too_large"'), refused);

  // Control: a body within the limit is asked for with 100 Continue, sent, and answered.
  const body = JSON.stringify({ path: "a.txt" });
  const accepted = await expectContinue(port, head(body.length), body);
  assert.match(accepted, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
  assert.ok(accepted.includes('"output":"# a.txt - 1 line, 2 chars\\n1\\tx"'), accepted);
});

Deno.test("replio serve refuses a request without the token with 401 before 100 Continue", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  await using served = await serve(wt.path, mock, { env: { REPLIO_SERVE_TOKEN: "s3cret-token" } });
  const port = Number(new URL(served.base).port);
  const body = JSON.stringify({ prompt: "hi" });
  const head = `POST /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n`;
  const refused = await expectContinue(port, head, body);
  assert.match(refused, /^HTTP\/1\.1 401 /);
  assert.ok(!refused.includes("100 Continue"), refused);
  // Control: with the token the body is asked for.
  const withToken = `POST /v1/turns HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n` +
    "Authorization: Bearer s3cret-token\r\n";
  const allowed = await expectContinue(port, withToken, "{}");
  // The empty object has no prompt: a 400 that needed the body, so the body was asked for.
  assert.match(allowed, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 400 /);
  assert.equal(mock.requests.length, 0);
});

Deno.test("replio serve refuses a browser's CORS preflight with 403 and no CORS headers, token or not", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel();
  const preflight = {
    method: "OPTIONS",
    headers: {
      origin: "https://editor.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type",
    },
  };
  for (const env of [{}, { REPLIO_SERVE_TOKEN: "s3cret-token" }]) {
    await using served = await serve(wt.path, mock, { env });
    const answer = await api(served, "/v1/chat/completions", preflight);
    assert.equal(answer.status, 403);
    assert.deepEqual(answer.body.error, {
      code: "cors_unsupported",
      type: "invalid_request_error",
      param: null,
      message: `Cannot answer a browser's preflight for "/v1/chat/completions": replio serve ` +
        `sends no CORS headers, so web pages cannot call it: call it from a program, or from ` +
        "a local proxy that adds the headers your page needs",
    });
    const cors = [...answer.headers.keys()].filter((name) => name.startsWith("access-control-"));
    assert.deepEqual(cors, []);
  }
});
