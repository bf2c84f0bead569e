/**
 * replio runs straight from a URL (DENO-NOTES: a remote entry needs `--import-map
 * <url>/deno.json`): the checkout is served over 127.0.0.1 and run from a folder with no
 * deno.json, which also proves bundled plugins load through static imports only.
 */
import assert from "node:assert/strict";
import { dirname, extname, join, relative, resolve } from "node:path";
import { VERSION } from "../src/version.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/** Deno refuses remote TypeScript served with a generic type. */
const CONTENT_TYPES: Record<string, string> = {
  ".ts": "application/typescript",
  ".json": "application/json",
  ".md": "text/markdown",
};

/**
 * Serves the checkout read-only on an ephemeral 127.0.0.1 port; `overrides` (path from the root,
 * e.g. `/src/version.ts`, → text) stand in for files, so a test can publish a new version.
 */
function serveCheckout(
  overrides: ReadonlyMap<string, string> = new Map(),
): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    const file = resolve(ROOT, "." + path);
    if (relative(ROOT, file).startsWith("..")) return new Response("outside", { status: 403 });
    try {
      const override = overrides.get(path);
      const body = override === undefined
        ? await Deno.readFile(file)
        : new TextEncoder().encode(override);
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

Deno.test("deno install -g from the URL, then --reload=<origin> picks up a new version", async () => {
  const overrides = new Map<string, string>();
  const publish = (version: string) =>
    overrides.set("/src/version.ts", `export const VERSION = "${version}";\n`);
  publish("9.9.1");
  await using server = serveCheckout(overrides);
  await using cache = await freshRemoteCache();
  const root = await Deno.makeTempDir({ prefix: "replio_install_" });
  await using _cleanup = {
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
  const base = `http://127.0.0.1:${server.addr.port}`;
  const env = { DENO_DIR: cache.dir, NO_COLOR: "1", RUST_BACKTRACE: "0" };
  const install = async (...reload: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "install",
        "-g",
        "-f",
        "--root",
        root,
        "--name",
        "replio",
        "--no-prompt",
        "-A",
        ...reload,
        "--import-map",
        `${base}/deno.json`,
        `${base}/main.ts`,
      ],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  };
  const installedVersion = async () => {
    // The installed script runs `deno` from PATH: put the running one first.
    const path = `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
    const out = await new Deno.Command(join(root, "bin", "replio"), {
      args: ["--version"],
      env: { ...env, PATH: path },
      stdout: "piped",
      stderr: "piped",
    }).output();
    return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  };

  await install();
  assert.equal(await installedVersion(), "replio 9.9.1\n");
  publish("9.9.2");
  // Control: a trailing slash reloads nothing, so the cached version stays.
  await install(`--reload=${base}/`);
  assert.equal(await installedVersion(), "replio 9.9.1\n");
  // docs/install.md: the origin without a trailing slash reloads every module under it.
  await install(`--reload=${base}`);
  assert.equal(await installedVersion(), "replio 9.9.2\n");
});
