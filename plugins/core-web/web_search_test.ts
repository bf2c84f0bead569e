import assert from "node:assert/strict";
import {
  invokeInWorktree,
  RecordingSink,
  runTool,
  tempWorktree,
} from "../../tests/support/worktree.ts";
import { HANG_MS } from "../../tests/support/deadline.ts";
import { withGrowingTimeout } from "../../tests/support/growing_timeout.ts";
import { serveRoutes } from "./_test_servers.ts";
import { webSearchSpec } from "./web_search.ts";

const SEARXNG_REPLY = {
  query: "deno permissions",
  results: [
    {
      title: "Security and permissions | Deno Docs",
      url: "https://docs.deno.com/runtime/fundamentals/security/",
      content: "Deno is secure by default.\n  Unless you enable it, a program has no access.",
    },
    {
      title: "Deno permissions explained",
      url: "https://blog.example/deno-permissions",
      content: "",
    },
    { title: "Duplicate", url: "https://docs.deno.com/runtime/fundamentals/security/" },
    { title: "Broken entry without a URL" },
  ],
};

const SEARXNG_RESULT = `Results for "deno permissions" from SearXNG:

[r1] Security and permissions | Deno Docs
https://docs.deno.com/runtime/fundamentals/security/
Deno is secure by default. Unless you enable it, a program has no access.

[r2] Deno permissions explained
https://blog.example/deno-permissions`;

const DUCKDUCKGO_PAGE = `<!DOCTYPE html>
<html><head><title>deno permissions at DuckDuckGo</title></head><body>
<div id="links" class="results">
  <div class="result results_links results_links_deep result--ad">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a class="result__a"
        href="https://duckduckgo.com/y.js?ad_domain=hosting.example&amp;u3=x">Deno hosting, 50% off</a></h2>
      <a class="result__snippet" href="https://duckduckgo.com/y.js?u3=x">Sponsored</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a"
        href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.deno.com%2Fruntime%2Ffundamentals%2Fsecurity%2F&amp;rut=abc"
        >Security and permissions | <b>Deno</b> Docs</a></h2>
      <div class="result__extras"><a class="result__url" href="#">docs.deno.com/runtime</a></div>
      <a class="result__snippet" href="#">Deno is secure by default. Unless you
        specifically enable it, a program run with <b>Deno</b> has no access &amp; no I/O.</a>
    </div>
  </div>
  <div class="result results_links results_links_deep web-result ">
    <div class="links_main links_deep result__body">
      <h2 class="result__title"><a rel="nofollow" class="result__a"
        href="https://github.com/denoland/deno/issues/1">Permissions issue #1</a></h2>
    </div>
  </div>
</div>
</body></html>`;

const DUCKDUCKGO_RESULT = `Results for "deno permissions" from DuckDuckGo:

[r1] Security and permissions | Deno Docs
https://docs.deno.com/runtime/fundamentals/security/
Deno is secure by default. Unless you specifically enable it, a program run with Deno has no access & no I/O.

[r2] Permissions issue #1
https://github.com/denoland/deno/issues/1`;

function searxng(origin: string) {
  return { "web.search_backend": "searxng", "web.searxng_url": origin };
}

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr;
  listener.close();
  return port;
}

Deno.test("web_search lists SearXNG results with ids, once per URL", async () => {
  await using server = serveRoutes({ "/search": () => Response.json(SEARXNG_REPLY) });
  await using wt = await tempWorktree();
  const output = await runTool(wt, "web_search", { query: " deno  permissions " }, {
    config: searxng(server.origin),
  });
  assert.equal(output, SEARXNG_RESULT);
  assert.deepEqual(server.requests, ["GET /search?q=deno+permissions&format=json"]);
});

Deno.test("web_search keeps a path prefix of web.searxng_url", async () => {
  await using server = serveRoutes({ "/searx/search": () => Response.json(SEARXNG_REPLY) });
  await using wt = await tempWorktree();
  await runTool(wt, "web_search", { query: "deno" }, {
    config: searxng(`${server.origin}/searx`),
  });
  assert.deepEqual(server.requests, ["GET /searx/search?q=deno&format=json"]);
});

Deno.test("web_search reads DuckDuckGo's HTML results by default, skipping ads", async () => {
  await using server = serveRoutes({
    "/html/": () => new Response(DUCKDUCKGO_PAGE, { headers: { "content-type": "text/html" } }),
  });
  await using wt = await tempWorktree();
  const output = await runTool(wt, "web_search", { query: "deno permissions" }, {
    config: { "web.duckduckgo_url": `${server.origin}/html/` },
  });
  assert.equal(output, DUCKDUCKGO_RESULT);
  assert.deepEqual(server.requests, ["POST /html/"]);
  assert.deepEqual(server.bodies, ["q=deno+permissions"]);
});

Deno.test("web_search caps results at search_results and numbers ids across searches", async () => {
  await using server = serveRoutes({ "/html/": () => new Response(DUCKDUCKGO_PAGE) });
  await using wt = await tempWorktree();
  const config = { "web.duckduckgo_url": `${server.origin}/html/`, search_results: 1 };
  const first = await runTool(wt, "web_search", { query: "deno" }, { config });
  const second = await runTool(wt, "web_search", { query: "deno again" }, { config });
  assert.equal(
    first,
    `Results for "deno" from DuckDuckGo:\n\n[r1] Security and permissions | Deno Docs\n` +
      `https://docs.deno.com/runtime/fundamentals/security/\n` +
      `Deno is secure by default. Unless you specifically enable it, a program run with Deno ` +
      `has no access & no I/O.`,
  );
  assert.match(second, /^Results for "deno again" from DuckDuckGo:\n\n\[r2\] Security/);
});

Deno.test("web_search sends Brave the key from the named variable and strips its markup", async () => {
  await using server = serveRoutes({
    "/brave": () =>
      Response.json({
        web: {
          results: [{
            title: "Deno&#x27;s <strong>permissions</strong>",
            url: "https://docs.deno.com/",
            description: "Use <strong>--allow-net</strong> &amp; friends.",
          }],
        },
      }),
  });
  await using wt = await tempWorktree();
  // PATH is always set: it stands in for a real key without changing the environment.
  const output = await runTool(wt, "web_search", { query: "deno permissions" }, {
    config: {
      "web.search_backend": "brave",
      "web.brave_url": `${server.origin}/brave`,
      "web.brave_api_key_env": "PATH",
      search_results: 3,
    },
  });
  assert.equal(
    output,
    `Results for "deno permissions" from Brave Search:\n\n[r1] Deno's permissions\n` +
      `https://docs.deno.com/\nUse --allow-net & friends.`,
  );
  assert.deepEqual(server.requests, ["GET /brave?q=deno+permissions&count=3"]);
  assert.equal(server.headers[0]!.get("x-subscription-token"), Deno.env.get("PATH"));
});

Deno.test("web_search posts the query to Tavily with a bearer key", async () => {
  await using server = serveRoutes({
    "/tavily": () =>
      Response.json({
        query: "deno",
        results: [{ title: "Deno", url: "https://deno.com/", content: "The runtime.", score: 0.9 }],
      }),
  });
  await using wt = await tempWorktree();
  const output = await runTool(wt, "web_search", { query: "deno" }, {
    config: {
      "web.search_backend": "tavily",
      "web.tavily_url": `${server.origin}/tavily`,
      "web.tavily_api_key_env": "PATH",
    },
  });
  assert.equal(
    output,
    `Results for "deno" from Tavily:\n\n[r1] Deno\nhttps://deno.com/\nThe runtime.`,
  );
  assert.deepEqual(server.requests, ["POST /tavily"]);
  assert.deepEqual(JSON.parse(server.bodies[0]!), { query: "deno", max_results: 5 });
  assert.equal(server.headers[0]!.get("authorization"), `Bearer ${Deno.env.get("PATH")}`);
});

Deno.test("web_search says which variable should hold a missing key", async () => {
  await using wt = await tempWorktree();
  const output = await runTool(wt, "web_search", { query: "deno" }, {
    config: { "web.search_backend": "brave", "web.brave_api_key_env": "REPLIO_TEST_UNSET_KEY" },
  });
  assert.equal(
    output,
    `Error: Cannot search with Brave Search: the environment variable "REPLIO_TEST_UNSET_KEY" ` +
      `holding its API key is not set: export the key in it, or set web.search_backend to ` +
      `duckduckgo`,
  );
});

Deno.test("web_search reports no results as a note", async () => {
  await using server = serveRoutes({ "/search": () => Response.json({ results: [] }) });
  await using wt = await tempWorktree();
  const sink = new RecordingSink();
  const outcome = await invokeInWorktree(wt, "web_search", { query: "zzqx" }, {
    config: searxng(server.origin),
    sink,
  });
  assert.equal(outcome.output, "No search results found.");
  assert.equal(outcome.isError, false);
  assert.deepEqual(
    sink.events.filter((e) => e.type === "tool_result").map((e) => e.is_note),
    [true],
  );
});

Deno.test("web_search reports a rate limit, a server error and a bot check in one line", async () => {
  await using server = serveRoutes({
    "/limited/search": () => new Response("slow down", { status: 429 }),
    "/broken/search": () => new Response("Traceback (most recent call last): ...", { status: 500 }),
    "/html/": () =>
      new Response(`<html><body><div class="anomaly-modal">Select all ducks</div></body></html>`, {
        status: 202,
      }),
  });
  await using wt = await tempWorktree();
  const outputs = [
    await runTool(wt, "web_search", { query: "deno" }, {
      config: searxng(`${server.origin}/limited`),
    }),
    await runTool(wt, "web_search", { query: "deno" }, {
      config: searxng(`${server.origin}/broken`),
    }),
    await runTool(wt, "web_search", { query: "deno" }, {
      config: { "web.duckduckgo_url": `${server.origin}/html/` },
    }),
  ];
  assert.deepEqual(outputs, [
    `Error: Cannot search with SearXNG: rate limited (HTTP 429): wait a minute and search ` +
    `again, or set web.search_backend to another backend`,
    `Error: Cannot search with SearXNG: HTTP 500 Internal Server Error: try again later, or ` +
    `set web.search_backend to another backend`,
    `Error: Cannot search with DuckDuckGo: it answered with a bot check (too many searches): ` +
    `wait a few minutes, or set web.search_backend to searxng, brave or tavily`,
  ]);
});

Deno.test("web_search explains a SearXNG without the JSON format", async () => {
  await using server = serveRoutes({
    "/forbidden/search": () => new Response("Forbidden", { status: 403 }),
    "/html/search": () => new Response("<html>results</html>"),
  });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_search", { query: "deno" }, {
      config: searxng(`${server.origin}/forbidden`),
    }),
    `Error: Cannot search with SearXNG: HTTP 403 Forbidden: enable the json format in the ` +
      `instance's settings.yml (search: formats: [html, json])`,
  );
  assert.equal(
    await runTool(wt, "web_search", { query: "deno" }, {
      config: searxng(`${server.origin}/html`),
    }),
    `Error: Cannot search with SearXNG: the reply is not JSON: check that web.searxng_url is ` +
      `a SearXNG instance`,
  );
});

Deno.test("web_search reports an unreachable or unset backend", async () => {
  await using wt = await tempWorktree();
  const port = closedPort();
  assert.match(
    await runTool(wt, "web_search", { query: "deno" }, {
      config: searxng(`http://127.0.0.1:${port}`),
    }),
    new RegExp(
      `^Error: Cannot search with SearXNG: the connection to "127\\.0\\.0\\.1:${port}" failed ` +
        `\\([^\\n]*refused[^\\n]*\\): check the address and the network$`,
      "i",
    ),
  );
  assert.equal(
    await runTool(wt, "web_search", { query: "deno" }, {
      config: { "web.search_backend": "searxng" },
    }),
    `Error: Cannot search with SearXNG: web.searxng_url is not set: set it to your ` +
      `instance's address, e.g. "http://127.0.0.1:8888"`,
  );
});

Deno.test("web_search answers to its aliases and declares its query for refinement", async () => {
  await using server = serveRoutes({ "/search": () => Response.json(SEARXNG_REPLY) });
  await using wt = await tempWorktree();
  const config = searxng(server.origin);
  assert.equal(await runTool(wt, "search", { q: "deno permissions" }, { config }), SEARXNG_RESULT);
  assert.match(await runTool(wt, "web", { query: "deno" }, { config }), /^Results for "deno"/);
  assert.deepEqual(
    [webSearchSpec.refine, webSearchSpec.category, webSearchSpec.permission],
    ["query", "search", "web"],
  );
});

Deno.test("web_search refuses an empty query", async () => {
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_search", { query: "  " }),
    `Error: Cannot search for "  ": the query is empty: pass the words to find`,
  );
});

Deno.test("web_search asks web.search_backends together and merges their results", async () => {
  await using server = serveRoutes({
    "/html/": () => new Response(DUCKDUCKGO_PAGE, { headers: { "content-type": "text/html" } }),
    "/search": () => Response.json(SEARXNG_REPLY),
  });
  await using wt = await tempWorktree();
  const out = await runTool(wt, "web_search", { query: "deno permissions" }, {
    config: {
      "web.search_backends": ["duckduckgo", "searxng"],
      "web.duckduckgo_url": `${server.origin}/html/`,
      "web.searxng_url": server.origin,
    },
  });
  // Taken in turns, each URL once: DuckDuckGo's first, SearXNG's first (a duplicate), then
  // DuckDuckGo's second and SearXNG's second.
  assert.equal(
    out,
    `Results for "deno permissions" from DuckDuckGo and SearXNG:

[r1] Security and permissions | Deno Docs
https://docs.deno.com/runtime/fundamentals/security/
Deno is secure by default. Unless you specifically enable it, a program run with Deno has no access & no I/O.

[r2] Permissions issue #1
https://github.com/denoland/deno/issues/1

[r3] Deno permissions explained
https://blog.example/deno-permissions`,
  );
});

Deno.test("web_search returns the backends that answered, naming one that timed out or failed", async () => {
  await using server = serveRoutes({
    "/html/": () => new Response(DUCKDUCKGO_PAGE, { headers: { "content-type": "text/html" } }),
    "/hang/search": (_request, hang) => hang(),
    "/broken/search": () => new Response("oops", { status: 500 }),
  });
  await using wt = await tempWorktree();
  const both = {
    "web.search_backends": ["duckduckgo", "searxng"],
    "web.duckduckgo_url": `${server.origin}/html/`,
  };
  // SearXNG's route answers only when the server stops: the timeout alone ends its search.
  // DuckDuckGo's must answer within the same timeout, and a busy machine may not get it parsed
  // in a second: that run finds no backend, and the test runs again with a longer timeout.
  const { result: out, seconds } = await withGrowingTimeout(
    "DuckDuckGo's results within the search timeout",
    (timeout) =>
      runTool(wt, "web_search", { query: "deno permissions" }, {
        config: {
          ...both,
          "web.searxng_url": `${server.origin}/hang`,
          "web.search_timeout": timeout,
        },
      }),
    (out, seconds) =>
      out === `Error: Cannot search: no backend answered: DuckDuckGo did not answer within ` +
          `${seconds.toFixed(1)} s; SearXNG did not answer within ${seconds.toFixed(1)} s`,
  );
  assert.equal(
    out,
    DUCKDUCKGO_RESULT +
      `\n\n(partial results: SearXNG did not answer within ${seconds.toFixed(1)} s; ` +
      "results from DuckDuckGo)",
  );
  // No backend hangs here: a timeout only a hang reaches costs nothing.
  const broken = await runTool(wt, "web_search", { query: "deno permissions" }, {
    config: {
      ...both,
      "web.searxng_url": `${server.origin}/broken`,
      "web.search_timeout": HANG_MS / 1000,
    },
  });
  assert.equal(
    broken.split("\n\n").at(-1),
    "(partial results: SearXNG failed: HTTP 500 Internal Server Error: try again later, or set " +
      "web.search_backend to another backend; results from DuckDuckGo)",
  );
  // Alone, a backend that does not answer is an error that says so, never a bare timeout.
  assert.equal(
    await runTool(wt, "web_search", { query: "deno" }, {
      config: { ...searxng(`${server.origin}/hang`), "web.search_timeout": 1 },
    }),
    "Error: Cannot search with SearXNG: no answer within 1.0 s (web.search_timeout): search " +
      "again, or add another backend to web.search_backends",
  );
});
