/**
 * Setup recipes of the docs run as printed (issue #25), each line read out of its page: serve.md's
 * start-up snippet sets the variable its examples use; a sandbox task started from another folder
 * with `--config` prints a line that can be pasted back; install-from-url.md's server one-liner
 * serves replio where `python3 -m http.server` does not; install.md's `deno install` line runs user
 * plugins.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { VERSION } from "../src/version.ts";
import { withDeadline } from "./support/deadline.ts";
import { startMockModel } from "./support/mock_model.ts";
import { childEnv, MAIN } from "./support/replio_process.ts";
import { shellQuote } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const HAS_PYTHON = (await new Deno.Command("bash", {
  args: ["-c", "command -v python3"],
  stdout: "null",
}).output()).success;
if (!HAS_PYTHON) {
  // deno-lint-ignore no-console
  console.error("docs_recipes_test: the URL tests are skipped: install python3 to run them");
}

/** The shell blocks of a page, each as its lines with `\` continuations joined. */
async function shellBlocks(page: string): Promise<string[][]> {
  const text = await Deno.readTextFile(join(ROOT, page));
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.replace(/\\\n\s*/g, "").split("\n").filter(Boolean)
  );
}

/** The first line of `page`'s shell blocks that starts with `start`. */
async function docLine(page: string, start: string): Promise<string> {
  const line = (await shellBlocks(page)).flat().find((l) => l.startsWith(start));
  assert.ok(line, `${page} has a shell line starting with ${start}`);
  return line;
}

/** Runs `script` in bash in `cwd` with `deno` and a `replio` of this checkout on PATH. */
async function bash(script: string, cwd: string, env: Record<string, string> = {}) {
  const bin = await Deno.makeTempDir({ prefix: "replio_bin_" });
  try {
    await Deno.writeTextFile(
      join(bin, "replio"),
      `#!/bin/sh\nexec ${shellQuote(Deno.execPath())} run --no-prompt -A ${
        shellQuote(MAIN)
      } "$@"\n`,
    );
    await Deno.chmod(join(bin, "replio"), 0o755);
    const path = `${bin}:${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`;
    const child = new Deno.Command("bash", {
      args: ["-c", script],
      cwd,
      clearEnv: true,
      env: childEnv(cwd, { PATH: path, ...env }),
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const out = await withDeadline(child.output(), `bash -c ${script}`, {
      onLate: () => child.kill(),
    });
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
}

Deno.test("docs/serve.md: the start-up snippet sets the variable the examples use", async () => {
  const blocks = await shellBlocks("docs/serve.md");
  const lines = blocks.flat();
  const assigned = new Set(
    lines.flatMap((l) => [...l.matchAll(/(?:^|export )([A-Z_]+)=/g)]).map((m) => m[1]),
  );
  const used = new Set(lines.flatMap((l) => [...l.matchAll(/\$([A-Z_]+)/g)]).map((m) => m[1]));
  assert.deepEqual([...used].filter((name) => !assigned.has(name)), []);

  // And run for real: the snippet, then the page's first example, against a server it started.
  const snippet = blocks.find((block) => block.some((l) => l.includes("replio serve --port 0")))!;
  const health = await docLine("docs/serve.md", "curl -s $U/v1/health");
  await using mock = startMockModel();
  await using wt = await tempWorktree({ ".xdg/replio/config.yaml": "model: m\n" });
  const run = await bash(
    [...snippet, health, 'kill "$!"', 'wait "$!"'].join("\n"),
    wt.path,
    { OPENAI_BASE_URL: mock.baseUrl },
  );
  assert.equal(run.code, 0, run.stderr);
  const answer = JSON.parse(run.stdout) as { status: string; worktree: string };
  assert.deepEqual([answer.status, answer.worktree], ["ok", wt.path]);
});

Deno.test("docs/sandbox.md: a task started from another folder prints a line that pastes back", async () => {
  const documented = await docLine("docs/sandbox.md", "deno task --config ");
  const command = documented.replace("/path/to/replio/deno.json", join(ROOT, "deno.json"));
  assert.notEqual(command, documented, "the page names the checkout as /path/to/replio");
  await using mock = startMockModel([{ text: "reviewed" }, { text: "reviewed again" }]);
  // A project folder whose path a shell must quote: a space and an apostrophe.
  const parent = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_proj_" }));
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(parent, { recursive: true }) };
  const project = join(parent, "it's a project");
  await Deno.mkdir(join(project, "src"), { recursive: true });
  await Deno.writeTextFile(join(project, "src/a.ts"), "export {};\n");
  // The review recipe reads only the project: its global config lives there in this test.
  await Deno.mkdir(join(project, ".xdg/replio"), { recursive: true });
  await Deno.writeTextFile(join(project, ".xdg/replio/config.yaml"), "model: m\n");
  const env = { OPENAI_BASE_URL: mock.baseUrl };

  const task = await bash(command, project, env);
  assert.equal(task.code, 0, task.stderr);
  assert.equal(task.stdout, "reviewed\n");
  const echoed = /^sandbox: (deno run .*)$/m.exec(task.stderr)?.[1];
  assert.ok(echoed, task.stderr);
  assert.ok(echoed.includes(`'--allow-read=${parent}/it'\\''s a project'`), echoed);

  const pasted = await bash(echoed, project, env);
  assert.equal(pasted.code, 0, pasted.stderr);
  assert.equal(pasted.stdout, "reviewed again\n");
  assert.deepEqual(mock.requests.map((r) => r.messages.at(-1)?.content), [
    "review src/",
    "review src/",
  ]);

  // Control: the same words joined unquoted, as the launcher printed them before, do not paste.
  const words = await bash(`set -- ${echoed}; printf '%s\\n' "$@"`, project);
  const unquoted = await bash(words.stdout.trim().split("\n").join(" "), project, env);
  assert.notEqual(unquoted.code, 0);
  assert.equal(mock.requests.length, 2);
});

/** A fresh Deno cache for remote modules that shares the npm cache (nothing is downloaded). */
async function freshDenoDir(): Promise<{ dir: string } & AsyncDisposable> {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json"],
    stdout: "piped",
  })
    .output();
  const { npmCache } = JSON.parse(new TextDecoder().decode(info.stdout)) as { npmCache: string };
  const dir = await Deno.makeTempDir({ prefix: "replio_denodir_" });
  await Deno.symlink(npmCache, join(dir, "npm"));
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/**
 * Starts `words` (a Python server) in the checkout on port 0 and returns its origin once it
 * prints the port it bound.
 */
async function startPythonServer(words: string[]) {
  const child = new Deno.Command(words[0]!, {
    args: words.slice(1),
    cwd: ROOT,
    env: { PYTHONUNBUFFERED: "1" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const port = await withDeadline(
    (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the server exited before listening: ${seen}`);
        seen += value;
        const found = /Serving HTTP on 127\.0\.0\.1 port (\d+)/.exec(seen)?.[1];
        if (found) return found;
      }
    })(),
    "the Python server's listening line",
    { onLate: () => child.kill() },
  );
  return {
    origin: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      child.kill();
      await reader.cancel();
      await child.status;
    },
  };
}

/** Words of a shell line as bash splits them. */
async function shellWords(line: string): Promise<string[]> {
  const out = await new Deno.Command("bash", {
    args: ["-c", `set -f; set -- ${line}; printf '%s\\0' "$@"`],
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(out.stdout).split("\0").slice(0, -1);
}

Deno.test({
  name:
    "docs/install-from-url.md: the server one-liner serves replio; python3 -m http.server does not",
  ignore: !HAS_PYTHON,
  async fn() {
    const oneLiner = await docLine("docs/install-from-url.md", "python3 -c ");
    assert.ok(oneLiner.includes("port=8000"), oneLiner);
    const run = await docLine("docs/install-from-url.md", "deno run --no-prompt -A ");
    await using cwd = await tempWorktree();
    const runFrom = async (origin: string) => {
      await using denoDir = await freshDenoDir();
      return await bash(run.replaceAll("http://127.0.0.1:8000", origin), cwd.path, {
        DENO_DIR: denoDir.dir,
      });
    };
    {
      await using server = await startPythonServer(
        await shellWords(oneLiner.replace("port=8000", "port=0")),
      );
      const ran = await runFrom(server.origin);
      assert.deepEqual([ran.code, ran.stdout], [0, `replio ${VERSION}\n`], ran.stderr);
    }
    // Control: the server people reach for first sends .ts with a type Deno refuses.
    await using plain = await startPythonServer([
      "python3",
      ...["-m", "http.server", "0", "--bind", "127.0.0.1"],
    ]);
    const refused = await runFrom(plain.origin);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /identified a Unknown module/);
  },
});

const SHOUT = `export const plugin = { name: "shout", tools: [{ spec: { name: "shout",
  description: "Shouts", parameters: { type: "object", properties: { text: { type: "string" } } },
  category: "read", permission: "read" }, handler: ({ text }) => String(text).toUpperCase() }] };
`;

Deno.test({
  name: "docs/install.md: the deno install line runs user plugins (--unstable-worker-options)",
  ignore: !HAS_PYTHON,
  async fn() {
    const install = await docLine("docs/install.md", "deno install -g --name replio");
    assert.match(install, / --unstable-worker-options /);
    const plugin = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      () => new Response(SHOUT, { headers: { "content-type": "application/javascript" } }),
    );
    await using _plugin = { [Symbol.asyncDispose]: () => plugin.shutdown() };
    await using server = await startPythonServer(
      await shellWords(
        (await docLine("docs/install-from-url.md", "python3 -c ")).replace("port=8000", "port=0"),
      ),
    );
    await using wt = await tempWorktree();
    await using denoDir = await freshDenoDir();
    const root = join(wt.path, ".deno-root");
    const env = { DENO_DIR: denoDir.dir, XDG_CACHE_HOME: join(wt.path, ".cache") };
    const installed = await bash(
      // The page's line as printed, into a folder of the test's instead of ~/.deno.
      install.replaceAll("https://HOST/replio", server.origin)
        .replace("install -g", `install -g --root ${shellQuote(root)}`),
      wt.path,
      env,
    );
    assert.equal(installed.code, 0, installed.stderr);
    const replio = shellQuote(join(root, "bin", "replio"));
    const url = `http://127.0.0.1:${plugin.addr.port}/shout.js`;
    const added = await bash(`${replio} plugin add ${url} --yes --global`, wt.path, env);
    assert.equal(added.code, 0, added.stderr);
    const shouted = await bash(`${replio} tool shout '{"text":"hi"}'`, wt.path, env);
    assert.deepEqual([shouted.code, shouted.stdout], [0, "HI\n"], shouted.stderr);

    // Control: the same entry without the flag skips the plugin and names the flag.
    const bare = await bash(
      `deno run --no-prompt -A --import-map ${server.origin}/deno.json ${server.origin}/main.ts ` +
        `tool shout '{"text":"hi"}'`,
      wt.path,
      env,
    );
    assert.notEqual(bare.stdout, "HI\n");
    assert.match(bare.stdout + bare.stderr, /--unstable-worker-options/);
  },
});
