/**
 * replio runs straight from a URL (DENO-NOTES: a remote entry needs `--import-map
 * <url>/deno.json`): the checkout is served over 127.0.0.1 and run from a folder with no
 * deno.json, which also proves bundled plugins load through static imports only.
 */
import assert from "node:assert/strict";
import { extname, join, relative, resolve } from "node:path";
import { VERSION } from "../src/version.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** Deno refuses remote TypeScript served with a generic type. */
const CONTENT_TYPES: Record<string, string> = {
  ".ts": "application/typescript",
  ".json": "application/json",
  ".md": "text/markdown",
};

/** Serves the checkout read-only on an ephemeral 127.0.0.1 port. */
function serveCheckout(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const file = resolve(ROOT, "." + decodeURIComponent(new URL(request.url).pathname));
    if (relative(ROOT, file).startsWith("..")) return new Response("outside", { status: 403 });
    try {
      const body = await Deno.readFile(file);
      const type = CONTENT_TYPES[extname(file)] ?? "text/plain";
      return new Response(body, { headers: { "content-type": type } });
    } catch (error) {
      if (
        !(error instanceof Deno.errors.NotFound) && !(error instanceof Deno.errors.IsADirectory)
      ) {
        throw error;
      }
      return new Response("not found", { status: 404 });
    }
  });
}

/**
 * A fresh Deno cache for remote modules (a cached copy from an earlier run on the same port
 * would hide a change) that shares the real npm cache, so nothing is downloaded again.
 */
async function freshRemoteCache() {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  const { npmCache } = JSON.parse(new TextDecoder().decode(info.stdout)) as { npmCache: string };
  const dir = await Deno.makeTempDir({ prefix: "replio_denodir_" });
  await Deno.symlink(npmCache, join(dir, "npm"));
  return {
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("replio runs from an http URL with the served deno.json as import map", async () => {
  await using server = serveCheckout();
  await using cache = await freshRemoteCache();
  const cwd = await Deno.makeTempDir({ prefix: "replio_urlrun_" });
  await using _cleanup = {
    [Symbol.asyncDispose]: () => Deno.remove(cwd, { recursive: true }),
  };
  const base = `http://127.0.0.1:${server.addr.port}`;

  const served = await fetch(`${base}/main.ts`);
  await served.body?.cancel();
  assert.equal(served.headers.get("content-type"), "application/typescript");

  const replio = async (...args: string[]) => {
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "-A",
        "--import-map",
        `${base}/deno.json`,
        `${base}/main.ts`,
        ...args,
      ],
      cwd,
      env: {
        DENO_DIR: cache.dir,
        XDG_CONFIG_HOME: join(cwd, ".config"),
        NO_COLOR: "1",
        RUST_BACKTRACE: "0",
      },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    return {
      code,
      stdout: new TextDecoder().decode(stdout),
      stderr: new TextDecoder().decode(stderr),
    };
  };

  const version = await replio("--version");
  assert.equal(version.code, 0, version.stderr);
  assert.equal(version.stdout, `replio ${VERSION}\n`);

  // A tool call loads config, every bundled plugin and their text imports from the URL too.
  await Deno.writeTextFile(join(cwd, "hello.txt"), "hi\n");
  const listing = await replio("tool", "list_dir", "{}");
  assert.equal(listing.code, 0, listing.stderr);
  assert.ok(listing.stdout.includes("hello.txt"), listing.stdout);
});
