import assert from "node:assert/strict";
import { join } from "node:path";
import { Config } from "../../src/config/mod.ts";
import { createToolContext } from "../../src/tools/mod.ts";
import { fetchWebPage } from "./web_fetch.ts";
import { runTool, tempWorktree } from "../../tests/support/worktree.ts";
import { fakeDns, serveRoutes } from "./_test_servers.ts";
import { makePdf } from "./_test_pdf.ts";

/** Tests serve pages on 127.0.0.1, which the tool refuses unless this is on. */
const PRIVATE_OK = { "web.allow_private": true };

const ARTICLE = `<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8"><title>Streams in Deno | Example Blog</title>
<script>window.analytics = { track() {} };</script>
<style>body { font-family: sans-serif }</style>
</head><body>
<header><nav><a href="/">Home</a> <a href="/blog/">Blog</a> <a href="/about">About</a></nav></header>
<aside class="sidebar"><h3>Popular</h3><ul><li><a href="/p/1">Ten tips</a></li>
<li><a href="/p/2">Why Rust</a></li></ul></aside>
<main><article>
<h1>Streams in Deno</h1>
<p>Deno uses <strong>web streams</strong> everywhere: files, sockets and HTTP bodies are all
<code>ReadableStream</code> objects, so one set of tools covers every source of bytes.</p>
<p>Read the <a href="../docs/streams.html">streams guide</a> for the full API, or keep reading for
the three patterns that cover most programs you will write.</p>
<h2>Piping</h2>
<p>A stream is consumed once. Pipe it through transforms to change it on the way, and the
runtime takes care of back-pressure for you without buffering everything in memory.</p>
<pre><code class="language-ts">const file = await Deno.open("log.txt");
await file.readable.pipeTo(Deno.stdout.writable);
</code></pre>
<ol><li>Transforms compose.</li><li>Back-pressure is automatic.</li></ol>
<script>document.write("ad")</script>
<img src="data:image/png;base64,iVBORw0KGgo=" alt="">
</article></main>
<footer><p>© 2026 Example Blog. <a href="/privacy">Privacy</a></p></footer>
<script src="/tracker.js"></script>
</body></html>`;

function articleMarkdown(origin: string): string {
  return `# Streams in Deno | Example Blog
URL: ${origin}/blog/streams

Deno uses **web streams** everywhere: files, sockets and HTTP bodies are all \`ReadableStream\` objects, so one set of tools covers every source of bytes.

Read the [streams guide](${origin}/docs/streams.html) for the full API, or keep reading for the three patterns that cover most programs you will write.

## Piping

A stream is consumed once. Pipe it through transforms to change it on the way, and the runtime takes care of back-pressure for you without buffering everything in memory.

\`\`\`ts
const file = await Deno.open("log.txt");
await file.readable.pipeTo(Deno.stdout.writable);
\`\`\`

1. Transforms compose.
2. Back-pressure is automatic.`;
}

function html(body: BodyInit, type = "text/html; charset=utf-8"): Response {
  return new Response(body, { headers: { "content-type": type } });
}

function redirect(to: string, status = 302): Response {
  return new Response(null, { status, headers: { location: to } });
}

/** 40 numbered lines of 61 characters each (newline included): 2440 characters. */
const LINES = Array.from({ length: 40 }, (_, i) => `line ${String(i + 1).padStart(2, "0")} `)
  .map((start) => start.padEnd(60, ".") + "\n").join("");

Deno.test("web_fetch turns an article page into clean Markdown", async () => {
  await using server = serveRoutes({ "/blog/streams": () => html(ARTICLE) });
  await using wt = await tempWorktree();
  const output = await runTool(wt, "web_fetch", { url: `${server.origin}/blog/streams` }, {
    config: PRIVATE_OK,
  });
  assert.equal(output, articleMarkdown(server.origin));
});

Deno.test("web_fetch shows a page that is no article whole, without its chrome", async () => {
  await using server = serveRoutes({
    "/status": () =>
      html(
        `<html><head><title>Status</title></head><body>` +
          `<header>Example Cloud</header><nav><a href="/a">A</a></nav>` +
          `<h1>All systems <em>operational</em></h1><ul><li>API: up</li><li>Web: up</li></ul>` +
          `<script>poll()</script><footer>Subscribe</footer></body></html>`,
      ),
  });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/status` }, { config: PRIVATE_OK }),
    `# Status\nURL: ${server.origin}/status\n\n# All systems _operational_\n\n- API: up\n- Web: up`,
  );
});

Deno.test("web_fetch decodes the charset a page declares in a meta tag", async () => {
  const latin1 = new Uint8Array([
    ...new TextEncoder().encode(
      `<html><head><meta charset="windows-1252"><title>Menu</title></head><body><p>Caf`,
    ),
    0xe9, // é in windows-1252
    ...new TextEncoder().encode(` au lait</p></body></html>`),
  ]);
  await using server = serveRoutes({ "/menu": () => html(latin1, "text/html") });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/menu` }, { config: PRIVATE_OK }),
    `# Menu\nURL: ${server.origin}/menu\n\nCafé au lait`,
  );
});

Deno.test("web_fetch shows JSON and plain text as they are", async () => {
  const json = `{"name": "replio",\n  "tags": ["agent", "<b>not html</b>"]}`;
  await using server = serveRoutes({
    "/data.json": () => html(json, "application/json"),
    "/notes.txt": () => html("# not a heading\n  indented *text*\n", "text/plain; charset=utf-8"),
  });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/data.json` }, { config: PRIVATE_OK }),
    `URL: ${server.origin}/data.json (application/json)\n\n${json}`,
  );
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/notes.txt` }, { config: PRIVATE_OK }),
    `URL: ${server.origin}/notes.txt (text/plain)\n\n# not a heading\n  indented *text*\n`,
  );
});

Deno.test("web_fetch pages long content in windows that end at a line", async () => {
  await using server = serveRoutes({ "/log.txt": () => html(LINES, "text/plain") });
  await using wt = await tempWorktree();
  const config = { ...PRIVATE_OK, "web.fetch_window_chars": 1000 };
  const url = `${server.origin}/log.txt`;
  const header = `URL: ${url} (text/plain)\n\n`;
  const windows = [];
  for (const offset of [0, 976, 1952, 2440, 5000]) {
    windows.push(await runTool(wt, "web_fetch", { url, offset }, { config }));
  }
  assert.deepEqual(windows, [
    `${header}${LINES.slice(0, 976).trimEnd()}\n\n` +
    `[Showing chars 0-976 of 2440: call web_fetch again with offset=976]`,
    `${header}${LINES.slice(976, 1952).trimEnd()}\n\n` +
    `[Showing chars 976-1952 of 2440: call web_fetch again with offset=1952]`,
    `${header}${LINES.slice(1952).trimEnd()}\n\n[Showing chars 1952-2440 of 2440: end of page]`,
    `(end of content: offset=2440 is past the 2440 chars of ${url})`,
    `(end of content: offset=5000 is past the 2440 chars of ${url})`,
  ]);
  // Later windows come from the page fetched for the first one.
  assert.deepEqual(server.requests, ["GET /log.txt"]);
});

Deno.test("web_fetch fetches a web_search result by its id", async () => {
  await using server = serveRoutes({
    "/search": () =>
      Response.json({
        results: [
          { title: "Other", url: "https://other.example/", content: "" },
          { title: "Streams", url: `http://127.0.0.1:${port()}/blog/streams`, content: "" },
        ],
      }),
    "/blog/streams": () => html(ARTICLE),
  });
  const port = () => new URL(server.origin).port;
  await using wt = await tempWorktree();
  const config = {
    ...PRIVATE_OK,
    "web.search_backend": "searxng",
    "web.searxng_url": server.origin,
  };
  assert.match(await runTool(wt, "web_search", { query: "deno streams" }, { config }), /\[r2\]/);
  const expected = articleMarkdown(server.origin);
  assert.equal(await runTool(wt, "web_fetch", { id: "r2" }, { config }), expected);
  assert.equal(await runTool(wt, "fetch_page", { id: "[R2]" }, { config }), expected);
  assert.equal(
    await runTool(wt, "web_fetch", { id: "r9" }, { config }),
    `Error: Cannot fetch result "r9": no web_search result has that id: pass the page's url, ` +
      `or run web_search again and use an id it lists`,
  );
});

Deno.test("web_fetch as open takes a URL passed as its id", async () => {
  await using server = serveRoutes({ "/blog/streams": () => html(ARTICLE) });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "open", { id: `${server.origin}/blog/streams` }, { config: PRIVATE_OK }),
    articleMarkdown(server.origin),
  );
  assert.equal(
    await runTool(wt, "open", {}),
    `Error: Cannot fetch a page: neither "url" nor "id" was given: pass url="https://…" or the ` +
      `id of a web_search result`,
  );
});

Deno.test("web_fetch follows redirects and shows where it landed", async () => {
  await using server = serveRoutes({
    "/old": () => redirect("/mid", 301),
    "/mid": () => redirect(`/new`, 307),
    "/new": () => html("moved here", "text/plain"),
  });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/old` }, { config: PRIVATE_OK }),
    `URL: ${server.origin}/new (text/plain, redirected from ${server.origin}/old)\n\nmoved here`,
  );
});

Deno.test("web_fetch stops at a redirect loop and after web.max_redirects", async () => {
  await using server = serveRoutes({
    "/a": () => redirect("/b"),
    "/b": () => redirect("/a"),
    "/r1": () => redirect("/r2"),
    "/r2": () => redirect("/r3"),
    "/r3": () => redirect("/r4"),
    "/r4": () => html("too far", "text/plain"),
  });
  await using wt = await tempWorktree();
  const config = { ...PRIVATE_OK, "web.max_redirects": 2 };
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/a` }, { config }),
    `Error: Cannot fetch "${server.origin}/a": redirect loop at "${server.origin}/a": the site ` +
      `keeps redirecting to pages already visited; try another source`,
  );
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/r1` }, { config }),
    `Error: Cannot fetch "${server.origin}/r1": more than 2 redirects (the last to ` +
      `"${server.origin}/r4"): try that URL directly or another source`,
  );
  assert.ok(!server.requests.includes("GET /r4"));
});

Deno.test("web_fetch gives up on a server that does not answer in time", async () => {
  await using server = serveRoutes({
    "/slow": (_request, hang) => hang(),
    "/trickle": () => {
      // Headers and a first chunk arrive at once; the rest never does.
      const body = new ReadableStream<Uint8Array>({
        start: (controller) => controller.enqueue(new TextEncoder().encode("<p>first")),
      });
      return html(body);
    },
  });
  await using wt = await tempWorktree();
  const config = { ...PRIVATE_OK, "web.fetch_timeout": 0.2 };
  for (const path of ["/slow", "/trickle"]) {
    assert.equal(
      await runTool(wt, "web_fetch", { url: `${server.origin}${path}` }, { config }),
      `Error: Cannot fetch "${server.origin}${path}": no complete response within 0.2 s: ` +
        `try again later or use another source`,
    );
  }
});

Deno.test("web_fetch stops as soon as the user cancels", async () => {
  const controller = new AbortController();
  await using server = serveRoutes({
    "/slow": (_request, hang) => {
      controller.abort();
      return hang();
    },
  });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/slow` }, {
      config: PRIVATE_OK,
      signal: controller.signal,
    }),
    "Error: cancelled by the user",
  );
});

Deno.test("web_fetch stops downloading at web.fetch_max_bytes", async () => {
  await using server = serveRoutes({ "/big.txt": () => html("x".repeat(100_000), "text/plain") });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/big.txt` }, {
      config: { ...PRIVATE_OK, "web.fetch_max_bytes": 2048 },
    }),
    `URL: ${server.origin}/big.txt (text/plain)\n` +
      `(Only the first 2048 bytes were downloaded: the page is larger than web.fetch_max_bytes)` +
      `\n\n${"x".repeat(2048)}`,
  );
});

Deno.test("web_fetch reports an HTTP error status", async () => {
  await using server = serveRoutes({});
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/gone` }, { config: PRIVATE_OK }),
    `Error: Cannot fetch "${server.origin}/gone": HTTP 404 Not Found: check the URL, or find ` +
      `the page with web_search`,
  );
});

Deno.test("web_fetch names binaries without showing them, and says why a broken PDF is unreadable", async () => {
  const binary = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2]);
  await using server = serveRoutes({
    "/paper.pdf": () =>
      new Response("%PDF-1.7 ...", {
        headers: { "content-type": "application/pdf", "content-length": "12" },
      }),
    "/logo.png": () => html(new Uint8Array(64), "image/png"),
    "/download": () => html(binary, "application/octet-stream"),
  });
  await using wt = await tempWorktree();
  const fetchPath = (path: string) =>
    runTool(wt, "web_fetch", { url: `${server.origin}${path}` }, { config: PRIVATE_OK });
  assert.deepEqual(
    [await fetchPath("/logo.png"), await fetchPath("/download")],
    [
      `${server.origin}/logo.png is binary content (image/png, 64 bytes): web_fetch shows ` +
      `only HTML, text and JSON`,
      `${server.origin}/download is binary content (application/octet-stream, 8 bytes): ` +
      `web_fetch shows only HTML, text and JSON`,
    ],
  );
  assert.match(
    await fetchPath("/paper.pdf"),
    new RegExp(
      `^Error: Cannot read the PDF at "${server.origin}/paper.pdf": .+: look for an HTML ` +
        "version of it$",
    ),
  );
});

Deno.test("web_fetch reads a PDF as text per page, with page numbers", async () => {
  const pdf = makePdf([["Streams in Deno", "Chapter one (the basics)"], [
    "Back-pressure",
    "is automatic",
  ]]);
  await using server = serveRoutes({
    "/paper.pdf": () => new Response(pdf, { headers: { "content-type": "application/pdf" } }),
    // Served without a type: the first bytes tell.
    "/untyped": () => new Response(pdf),
  });
  await using wt = await tempWorktree();
  for (const path of ["/paper.pdf", "/untyped"]) {
    const out = await runTool(wt, "web_fetch", { url: `${server.origin}${path}` }, {
      config: PRIVATE_OK,
    });
    assert.equal(
      out,
      `URL: ${server.origin}${path} (PDF, 2 pages)\n\n` +
        "--- page 1 of 2 ---\nStreams in Deno\nChapter one (the basics)\n\n" +
        "--- page 2 of 2 ---\nBack-pressure\nis automatic",
    );
  }
});

Deno.test("web_fetch heads a PDF with its own title, and windows a long one", async () => {
  const lines = Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long report page`);
  const pdf = makePdf([lines, lines], "Annual Report (2026)");
  await using server = serveRoutes({
    "/report.pdf": () => new Response(pdf, { headers: { "content-type": "application/pdf" } }),
  });
  await using wt = await tempWorktree();
  const url = `${server.origin}/report.pdf`;
  const config = { ...PRIVATE_OK, "web.fetch_window_chars": 1000 };
  const first = await runTool(wt, "web_fetch", { url }, { config });
  const [title, head, blank, page] = first.split("\n");
  assert.deepEqual([title, head, blank, page], [
    "# Annual Report (2026)",
    `URL: ${url} (PDF, 2 pages)`,
    "",
    "--- page 1 of 2 ---",
  ]);
  const next = first.match(
    /\[Showing chars 0-(\d+) of (\d+): call web_fetch again with offset=(\d+)\]$/,
  );
  assert.ok(next, first);
  const second = await runTool(wt, "web_fetch", { url, offset: Number(next[3]) }, { config });
  assert.match(second, new RegExp(`\\[Showing chars ${next[3]}-\\d+ of ${next[2]}: `));
});

Deno.test("web_fetch fetches only http and https", async () => {
  await using wt = await tempWorktree();
  const outputs = [];
  for (const url of ["file:///etc/passwd", "ftp://ftp.example/x", "javascript:alert(1)"]) {
    outputs.push(await runTool(wt, "web_fetch", { url }));
  }
  outputs.push(await runTool(wt, "web_fetch", { url: "http://exa mple.com/" }));
  assert.deepEqual(outputs, [
    `Error: Cannot fetch "file:///etc/passwd": only http and https URLs can be fetched: pass ` +
    `an http(s) URL (file_read reads local files)`,
    `Error: Cannot fetch "ftp://ftp.example/x": only http and https URLs can be fetched: pass ` +
    `an http(s) URL (file_read reads local files)`,
    `Error: Cannot fetch "javascript:alert(1)": only http and https URLs can be fetched: pass ` +
    `an http(s) URL (file_read reads local files)`,
    `Error: Cannot fetch "http://exa mple.com/": it is not a valid URL: pass an absolute ` +
    `http(s) URL`,
  ]);
});

Deno.test("web_fetch refuses loopback, private, link-local and metadata addresses", async () => {
  await using server = serveRoutes({ "/": () => html("secret", "text/plain") });
  await using wt = await tempWorktree();
  const port = new URL(server.origin).port;
  const refusals: Record<string, string> = {
    [`${server.origin}/`]: `${server.origin}/": 127.0.0.1 is a loopback address`,
    "http://2130706433/": `http://127.0.0.1/": 127.0.0.1 is a loopback address`,
    "http://0x7f.1/": `http://127.0.0.1/": 127.0.0.1 is a loopback address`,
    "http://0177.0.0.1/": `http://127.0.0.1/": 127.0.0.1 is a loopback address`,
    "http://[::1]/": `http://[::1]/": ::1 is a loopback address`,
    "http://[::ffff:127.0.0.1]/": `http://[::ffff:7f00:1]/": ::ffff:7f00:1 is a loopback address`,
    [`http://localhost:${port}/`]:
      `http://localhost:${port}/": "localhost" resolves to 127.0.0.1, a loopback address`,
    "http://app.localhost/": `http://app.localhost/": "app.localhost" resolves to 127.0.0.1, ` +
      `a loopback address`,
    "http://0.0.0.0/": `http://0.0.0.0/": 0.0.0.0 is an unspecified address`,
    "http://169.254.169.254/latest/meta-data/":
      `http://169.254.169.254/latest/meta-data/": 169.254.169.254 is a cloud metadata address`,
    "http://[fd00:ec2::254]/":
      `http://[fd00:ec2::254]/": fd00:ec2::254 is a cloud metadata address`,
    "http://10.0.0.1/": `http://10.0.0.1/": 10.0.0.1 is a private address`,
    "http://172.16.5.4/": `http://172.16.5.4/": 172.16.5.4 is a private address`,
    "http://192.168.1.1/admin": `http://192.168.1.1/admin": 192.168.1.1 is a private address`,
    "http://100.100.100.200/": `http://100.100.100.200/": 100.100.100.200 is a shared ` +
      `(carrier-grade NAT) address`,
    "http://[fe80::1]/": `http://[fe80::1]/": fe80::1 is a link-local address`,
    "http://[fd12::1]/": `http://[fd12::1]/": fd12::1 is a private address`,
  };
  const outputs: Record<string, string> = {};
  for (const url of Object.keys(refusals)) {
    outputs[url] = await runTool(wt, "web_fetch", { url });
  }
  const suffix = `: web tools refuse loopback, private, link-local and metadata addresses by ` +
    `default; the user can set web.allow_private to true to allow them`;
  assert.deepEqual(
    outputs,
    Object.fromEntries(
      Object.entries(refusals).map(([url, why]) => [url, `Error: Cannot fetch "${why}${suffix}`]),
    ),
  );
  assert.deepEqual(server.requests, []);
});

Deno.test("web_fetch refuses a public-looking name that resolves to a private address", async () => {
  await using server = serveRoutes({ "/": () => html("secret", "text/plain") });
  await using _dns = await fakeDns({
    "intranet.example.com": ["127.0.0.1"],
    "dual.example.com": ["203.0.113.9", "::1"],
  });
  await using wt = await tempWorktree();
  const port = new URL(server.origin).port;
  const suffix = `: web tools refuse loopback, private, link-local and metadata addresses by ` +
    `default; the user can set web.allow_private to true to allow them`;
  assert.deepEqual(
    [
      await runTool(wt, "web_fetch", { url: `http://intranet.example.com:${port}/` }),
      await runTool(wt, "web_fetch", { url: "intranet.example.com/wiki" }),
      await runTool(wt, "web_fetch", { url: `http://dual.example.com/` }),
      await runTool(wt, "web_fetch", { url: `http://nowhere.example.com/` }),
    ],
    [
      `Error: Cannot fetch "http://intranet.example.com:${port}/": "intranet.example.com" ` +
      `resolves to 127.0.0.1, a loopback address${suffix}`,
      `Error: Cannot fetch "https://intranet.example.com/wiki": "intranet.example.com" ` +
      `resolves to 127.0.0.1, a loopback address${suffix}`,
      `Error: Cannot fetch "http://dual.example.com/": "dual.example.com" resolves to ::1, a ` +
      `loopback address${suffix}`,
      `Error: Cannot fetch "http://nowhere.example.com/": host "nowhere.example.com" did not ` +
      `resolve (no address): check the URL`,
    ],
  );
  assert.deepEqual(server.requests, []);
});

Deno.test("web_fetch refuses a redirect to a private address", async () => {
  // The test server stands in as an HTTP proxy for a public address (TEST-NET-3, never
  // routed), so the first hop passes the check and its redirect to 127.0.0.1 must not.
  await using server = serveRoutes({
    "/start": () => redirect(`${server.origin}/secret`),
    "/blog/streams": () => html(ARTICLE),
    "/secret": () => html("cloud credentials", "text/plain"),
  });
  await using wt = await tempWorktree();
  const replio = (url: string) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-prompt",
        "main.ts",
        "tool",
        "web_fetch",
        JSON.stringify({ url }),
        "--path",
        wt.path,
      ],
      cwd: join(import.meta.dirname!, "..", ".."),
      env: {
        HTTP_PROXY: server.origin,
        NO_PROXY: "",
        no_proxy: "",
        XDG_CONFIG_HOME: join(wt.path, "no-global-config"),
        NO_COLOR: "1",
        RUST_BACKTRACE: "0",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
  const page = await replio("http://203.0.113.7/blog/streams");
  const refused = await replio("http://203.0.113.7/start");
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.deepEqual(
    [page.code, decode(page.stdout), refused.code, decode(refused.stdout)],
    [
      0,
      articleMarkdown("http://203.0.113.7") + "\n",
      1,
      `Error: Cannot fetch "http://203.0.113.7/start": it redirects to "${server.origin}/secret"` +
      `: 127.0.0.1 is a loopback address: web tools refuse loopback, private, link-local and ` +
      `metadata addresses by default; the user can set web.allow_private to true to allow them\n`,
    ],
  );
  assert.deepEqual(server.requests, ["GET /blog/streams", "GET /start"]);
});

Deno.test("web_fetch results are kept out of session files by default", () => {
  assert.deepEqual(Config.defaults().get("noise_tools"), ["web_fetch", "open", "fetch_page"]);
});

Deno.test({
  name: "web_fetch names the missing --allow-net flag, never web.allow_private",
  permissions: { read: true, write: true, env: true, net: false },
  async fn() {
    await using wt = await tempWorktree();
    // Through the policy: the Deno layer refuses the tool and names the flag.
    assert.equal(
      await runTool(wt, "web_fetch", { url: "https://docs.example.com/" }),
      "Error: web_fetch is unavailable: replio was started without --allow-net: do not retry " +
        "it; use another tool (the user can restart replio with --allow-net)",
    );
    // The handler itself, as a caller that skips the policy meets it.
    // Deno names the system's DNS server, which differs between machines.
    const dnsRefusal = await Deno.resolveDns("docs.example.com", "A").then(
      () => "resolved",
      (error: Error) => error.message,
    );
    assert.match(dnsRefusal, /^Requires net access to /);
    const ctx = createToolContext({
      config: Config.defaults(),
      worktree: wt.path,
      signal: new AbortController().signal,
    });
    await assert.rejects(
      fetchWebPage({ url: "http://203.0.113.7/docs" }, ctx),
      new Deno.errors.NotCapable(
        `Cannot fetch "http://203.0.113.7/docs": replio was started without network ` +
          `access to "203.0.113.7": restart it with --allow-net (or --allow-net=203.0.113.7)`,
      ),
    );
    await assert.rejects(
      fetchWebPage({ url: "https://docs.example.com/" }, ctx),
      new Deno.errors.NotCapable(
        `Cannot fetch "https://docs.example.com/": the private-address check may not ` +
          `look up "docs.example.com" (${dnsRefusal}): the check needs DNS: restart replio ` +
          `with --allow-net (a host list must include the DNS server)`,
      ),
    );
  },
});

const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Benchmarks</title></head><body>
<nav><a href="/">Home</a></nav>
<main><article>
<h1>Benchmarks</h1>
<p>We timed three ways to read a large file on the same machine, five runs each, and kept the
median of the five. The numbers below are milliseconds; lower is better for every column.</p>
<table>
<thead><tr><th>Method</th><th>Time (ms)</th><th>Notes</th></tr></thead>
<tbody>
<tr><td><code>readFile</code></td><td>120</td><td>whole file | in memory</td></tr>
<tr><td>streams</td><td>95</td><td>constant<br>memory</td></tr>
<tr><td colspan="2">mmap (not portable)</td><td>—</td></tr>
</tbody></table>
<p>The stream version is the one we recommend for files of unknown size, since its memory use
does not grow with the file, and it was also the fastest of the three in every run we made.</p>
<pre class="highlight python">def read(path):
    with open(path) as f:
        return f.read()  # *all* of it, __at once__</pre>
<div class="highlight-shell"><pre>$ echo \`date\` &gt; out.txt</pre></div>
</article></main></body></html>`;

Deno.test("web_fetch keeps tables as Markdown tables and code blocks verbatim with their language", async () => {
  await using server = serveRoutes({ "/bench": () => html(DOCS_PAGE) });
  await using wt = await tempWorktree();
  const out = await runTool(wt, "web_fetch", { url: `${server.origin}/bench` }, {
    config: PRIVATE_OK,
  });
  assert.ok(
    out.includes(
      "| Method | Time (ms) | Notes |\n" +
        "| --- | --- | --- |\n" +
        "| `readFile` | 120 | whole file \\| in memory |\n" +
        "| streams | 95 | constant memory |\n" +
        "| mmap (not portable) |  | — |\n",
    ),
    out,
  );
  assert.ok(
    out.includes(
      "```python\ndef read(path):\n    with open(path) as f:\n" +
        "        return f.read()  # *all* of it, __at once__\n```",
    ),
    out,
  );
  assert.ok(
    out.includes("````shell\n$ echo `date` > out.txt\n````") ||
      out.includes("```shell\n$ echo `date` > out.txt\n```"),
    out,
  );
});

Deno.test("web_fetch fetches a page again with its ETag or Last-Modified, and a 304 reuses it", async () => {
  const seen: { etag: string | null; since: string | null }[] = [];
  let version = 1;
  await using server = serveRoutes({
    "/etag": (request) => {
      seen.push({ etag: request.headers.get("if-none-match"), since: null });
      if (request.headers.get("if-none-match") === `"v${version}"`) {
        return new Response(null, { status: 304 });
      }
      return new Response(`version ${version}`, {
        headers: { "content-type": "text/plain", etag: `"v${version}"` },
      });
    },
    "/dated": (request) => {
      seen.push({ etag: null, since: request.headers.get("if-modified-since") });
      if (request.headers.get("if-modified-since") === "Tue, 01 Dec 2026 10:00:00 GMT") {
        return new Response(null, { status: 304 });
      }
      return new Response("dated page", {
        headers: { "content-type": "text/plain", "last-modified": "Tue, 01 Dec 2026 10:00:00 GMT" },
      });
    },
  });
  await using wt = await tempWorktree();
  const fetchPath = (path: string) =>
    runTool(wt, "web_fetch", { url: `${server.origin}${path}` }, { config: PRIVATE_OK });
  const first = await fetchPath("/etag");
  assert.equal(first, `URL: ${server.origin}/etag (text/plain)\n\nversion 1`);
  assert.equal(await fetchPath("/etag"), first);
  version = 2;
  assert.equal(await fetchPath("/etag"), `URL: ${server.origin}/etag (text/plain)\n\nversion 2`);
  const dated = await fetchPath("/dated");
  assert.equal(await fetchPath("/dated"), dated);
  assert.deepEqual(seen, [
    { etag: null, since: null },
    { etag: '"v1"', since: null },
    { etag: '"v1"', since: null },
    { etag: null, since: null },
    { etag: null, since: "Tue, 01 Dec 2026 10:00:00 GMT" },
  ]);
});

Deno.test("web_fetch keeps identifiers and symbols in prose verbatim, escaping only structure", async () => {
  await using server = serveRoutes({
    "/token": () =>
      html(
        `<html><head><title>Token</title></head><body>` +
          `<p>Set PAGE_TOKEN_4471 to snake_case_value, then run a*b [x] and C:\\dir.</p>` +
          `<p># not a heading</p><p>1. not a list</p><p>- not a bullet either</p></body></html>`,
      ),
  });
  await using wt = await tempWorktree();
  assert.equal(
    await runTool(wt, "web_fetch", { url: `${server.origin}/token` }, { config: PRIVATE_OK }),
    `# Token\nURL: ${server.origin}/token\n\n` +
      "Set PAGE_TOKEN_4471 to snake_case_value, then run a*b [x] and C:\\dir.\n\n" +
      "\\# not a heading\n\n1\\. not a list\n\n\\- not a bullet either",
  );
});
