import assert from "node:assert/strict";
import { connectionFailure, httpFailure } from "./_failures.ts";

/** A fetch failure as Deno throws it: "fetch failed", with the system's words in the cause. */
function fetchFailed(cause: string): TypeError {
  return new TypeError("fetch failed", {
    cause: new Error(`error sending request for url (…): client error (Connect): ${cause}`),
  });
}

Deno.test("connectionFailure retries a refused connection to another host, not to this one", () => {
  const refused = fetchFailed("tcp connect error: Connection refused (os error 111)");
  assert.deepEqual(connectionFailure(refused, "https://llm.example.com/v1"), {
    code: "connection",
    detail: 'connection refused at "https://llm.example.com/v1"',
    fix: "check that the server is running, base_url is right and the network is up",
    retryable: true,
  });
  for (const host of ["127.0.0.1:8080", "localhost:8080", "[::1]:8080"]) {
    const failure = connectionFailure(refused, `http://${host}/v1`);
    assert.equal(failure.retryable, false, host);
    assert.equal(
      failure.detail,
      `connection refused at "http://${host}/v1": nothing is listening on port 8080`,
    );
  }
});

Deno.test("connectionFailure names a host that cannot be found, retrying only a temporary failure", () => {
  const unknown = fetchFailed(
    "dns error: failed to lookup address information: Name or service not known",
  );
  assert.deepEqual(connectionFailure(unknown, "http://llm.invalid/v1"), {
    code: "connection",
    detail: 'cannot find host "llm.invalid": Name or service not known',
    fix: "check the host name in base_url and that the network is up",
    retryable: false,
  });
  const temporary = fetchFailed(
    "dns error: failed to lookup address information: Temporary failure in name resolution",
  );
  assert.equal(connectionFailure(temporary, "http://llm.example/v1").retryable, true);
});

Deno.test("connectionFailure keeps the system's last words for other failures", () => {
  const cut = new TypeError("error reading a body from connection");
  assert.deepEqual(connectionFailure(cut, "http://127.0.0.1:1/v1"), {
    code: "connection",
    detail: 'connection to "http://127.0.0.1:1/v1" failed: error reading a body from connection',
    fix: "check that the server is running, base_url is right and the network is up",
    retryable: true,
  });
});

Deno.test("httpFailure retries 429 and 5xx unless the server says not to, and never 4xx", () => {
  const endpoint = { baseUrl: "http://h/v1", model: "m", apiKeyEnv: "K", hasKey: true };
  const retryable = (status: number, headers: Record<string, string> = {}) =>
    httpFailure({ status, headers: new Headers(headers), message: "x" }, endpoint, "").retryable;
  assert.deepEqual(
    [429, 500, 503, 400, 401, 403, 404].map((status) => retryable(status)),
    [true, true, true, false, false, false, false],
  );
  assert.equal(retryable(500, { "x-should-retry": "false" }), false);
});

Deno.test("connectionFailure does not retry a port fetch refuses to use", () => {
  const blocked = new TypeError("Fetch failed: Requests to port 9 are blocked");
  assert.deepEqual(connectionFailure(blocked, "http://127.0.0.1:9/v1"), {
    code: "connection",
    detail: "cannot connect to port 9: fetch blocks it, as browsers do",
    fix: "run the model server on another port and set base_url to it",
    retryable: false,
  });
});
