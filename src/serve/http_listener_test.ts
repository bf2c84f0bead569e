import assert from "node:assert/strict";
import { withDeadline } from "../../tests/support/deadline.ts";
import { type HttpListener, listenHttp, type RequestHandler } from "./http_listener.ts";

const encoder = new TextEncoder();

/** A listener on a free loopback port; disposing it shuts it down. */
async function listening(handler: RequestHandler, onError: (error: unknown) => void = () => {}) {
  const listener = await listenHttp({ hostname: "127.0.0.1", port: 0, handler, onError });
  return Object.assign(listener, { [Symbol.asyncDispose]: () => listener.shutdown() });
}

/** Writes `text` on a fresh connection and returns all the server wrote until it closed. */
async function exchange(listener: HttpListener, text: string): Promise<string> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.port });
  await conn.write(encoder.encode(text));
  let reply = "";
  const buffer = new Uint8Array(4096);
  for (;;) {
    const n = await withDeadline(conn.read(buffer), "the server's reply");
    if (n === null) return reply;
    reply += new TextDecoder().decode(buffer.subarray(0, n));
  }
}

Deno.test("listenHttp sends 100 Continue only once the handler reads the body", async () => {
  await using listener = await listening(async (request) => {
    if (new URL(request.url).pathname === "/refuse") return new Response("no", { status: 413 });
    return new Response(`got ${await request.text()}`);
  });
  const head = (path: string) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n` +
    "Connection: close\r\n\r\n";
  const refused = await exchange(listener, head("/refuse"));
  assert.match(refused, /^HTTP\/1\.1 413 /);
  assert.ok(!refused.includes("100 Continue"));

  // Control: a handler that reads the body gets it after 100 Continue.
  using conn = await Deno.connect({ hostname: "127.0.0.1", port: listener.port });
  await conn.write(encoder.encode(head("/read")));
  const buffer = new Uint8Array(4096);
  const first = await withDeadline(conn.read(buffer), "100 Continue");
  assert.equal(
    new TextDecoder().decode(buffer.subarray(0, first!)),
    "HTTP/1.1 100 Continue\r\n\r\n",
  );
  await conn.write(encoder.encode("hello"));
  let rest = "";
  for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
    rest += new TextDecoder().decode(buffer.subarray(0, n));
  }
  assert.match(rest, /^HTTP\/1\.1 200 [\s\S]*\r\n\r\ngot hello$/);
});

Deno.test("listenHttp answers a Host no URL can hold with a JSON 400, without calling the handler", async () => {
  let calls = 0;
  await using listener = await listening(() => {
    calls++;
    return Promise.resolve(new Response("ok"));
  });
  const reply = await exchange(
    listener,
    "GET /x HTTP/1.1\r\nHost: bad host\r\nConnection: close\r\n\r\n",
  );
  assert.match(reply, /^HTTP\/1\.1 400 /);
  const body = JSON.parse(reply.slice(reply.indexOf("\r\n\r\n") + 4));
  assert.equal(body.error.code, "bad_request");
  assert.match(
    body.error.message,
    /^Cannot read the request: .*: send a valid HTTP\/1\.1 request$/,
  );
  assert.equal(calls, 0);
});

Deno.test("listenHttp cancels an event stream and aborts the request's signal when the client hangs up", async () => {
  const cancelled = Promise.withResolvers<void>();
  const aborted = Promise.withResolvers<void>();
  await using listener = await listening((request) => {
    request.signal.addEventListener("abort", () => aborted.resolve());
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(encoder.encode("data: 1\n\n")),
      cancel: () => cancelled.resolve(),
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  });
  const client = new AbortController();
  const response = await fetch(`http://127.0.0.1:${listener.port}/events`, {
    signal: client.signal,
  });
  const reader = response.body!.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "data: 1\n\n");
  client.abort();
  await reader.cancel().catch(() => {});
  await withDeadline(cancelled.promise, "the response body to be cancelled");
  await withDeadline(aborted.promise, "the request's signal to abort");
});

Deno.test("listenHttp shutdown lets a response under way finish, then closes idle keep-alive connections", async () => {
  const stream = Promise.withResolvers<ReadableStreamDefaultController<Uint8Array>>();
  const listener = await listening((request) => {
    if (new URL(request.url).pathname === "/quick") return Promise.resolve(new Response("quick"));
    const body = new ReadableStream<Uint8Array>({ start: (c) => stream.resolve(c) });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  });
  const base = `http://127.0.0.1:${listener.port}`;
  // Leaves a keep-alive connection idle in fetch's pool.
  assert.equal(await (await fetch(`${base}/quick`)).text(), "quick");
  const slow = await fetch(`${base}/slow`);
  const controller = await withDeadline(stream.promise, "the streamed response to start");
  const stopped = listener.shutdown();
  controller.enqueue(encoder.encode("data: last\n\n"));
  controller.close();
  assert.equal(await slow.text(), "data: last\n\n");
  await withDeadline(stopped, "the shutdown to finish");
});

Deno.test("listenHttp rejects with AddrInUse when the port is taken", async () => {
  await using taken = await listening(() => Promise.resolve(new Response("")));
  await assert.rejects(
    listenHttp({
      hostname: "127.0.0.1",
      port: taken.port,
      handler: () => Promise.resolve(new Response("")),
      onError() {},
    }),
    Deno.errors.AddrInUse,
  );
});

Deno.test("listenHttp reports a body that breaks mid-stream and cuts the connection", async () => {
  const errors: unknown[] = [];
  await using listener = await listening(() => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("data: 1\n\n"));
        controller.error(new RangeError("the stream broke"));
      },
    });
    return Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  }, (error) => errors.push(error));
  const response = await fetch(`http://127.0.0.1:${listener.port}/`);
  await assert.rejects(response.text());
  assert.equal((errors[0] as Error).message, "the stream broke");
});
