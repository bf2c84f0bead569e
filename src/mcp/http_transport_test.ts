import assert from "node:assert/strict";
import { fetchWithHeaders } from "./http_transport.ts";

/** A server on 127.0.0.1 that records the secret header of each request; `answer` replies. */
function recordingServer(answer: (request: Request) => Response) {
  const seen: (string | null)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    seen.push(request.headers.get("x-api-key"));
    return answer(request);
  });
  return {
    seen,
    origin: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("fetchWithHeaders sends the headers to the server's origin only, redirects included", async () => {
  await using elsewhere = recordingServer(() => new Response("elsewhere"));
  await using server = recordingServer((request) =>
    new URL(request.url).pathname === "/away"
      ? Response.redirect(`${elsewhere.origin}/taken`, 302)
      : new Response("server")
  );
  const send = fetchWithHeaders(server.origin, { "X-Api-Key": "s3cret" });

  assert.equal(await (await send(`${server.origin}/mcp`)).text(), "server");
  assert.equal(await (await send(`${elsewhere.origin}/token`)).text(), "elsewhere");
  // The attack: the server sends the request on to another origin.
  assert.equal(await (await send(`${server.origin}/away`)).text(), "elsewhere");
  assert.deepEqual(server.seen, ["s3cret", "s3cret"]);
  assert.deepEqual(elsewhere.seen, [null, null]);

  // Control: fetch's own redirect carries the header there, which is why the wrapper follows.
  const plain = await fetch(`${server.origin}/away`, { headers: { "X-Api-Key": "s3cret" } });
  await plain.body?.cancel();
  assert.deepEqual(elsewhere.seen, [null, null, "s3cret"]);
});

Deno.test("fetchWithHeaders follows a redirect within the origin with the headers", async () => {
  await using server = recordingServer((request) =>
    new URL(request.url).pathname === "/old"
      ? Response.redirect(`${new URL(request.url).origin}/new`, 307)
      : new Response("new")
  );
  const send = fetchWithHeaders(server.origin, { "X-Api-Key": "s3cret" });
  assert.equal(await (await send(`${server.origin}/old`)).text(), "new");
  assert.deepEqual(server.seen, ["s3cret", "s3cret"]);
});
