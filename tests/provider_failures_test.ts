/**
 * A model server that fails, as a person meets it through `replio run`, `replio serve` and the
 * REPL: a refused port, an HTML login page, a refused key, a server that never answers, Ctrl-C
 * during a retry wait. Each says what happened and what to do, is not retried when another
 * attempt cannot help, and keeps the prompt in a session whose id names a file that exists, so
 * `--continue` or `--session ID` sends it again.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  LOGIN_PAGE,
  refusingPort,
  startAnsweringServer,
  startSilentServer,
} from "./support/fault_servers.ts";
import { type MockModel, startMockModel } from "./support/mock_model.ts";
import { replioCommand, runReplio } from "./support/replio_process.ts";
import { setup, TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";
import { withDeadline } from "./support/deadline.ts";

/** `replio run` against `baseUrl` with model `mock-model`. */
function runAgainst(
  baseUrl: string,
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
) {
  return runReplio(["run", "--base-url", baseUrl, "--model", "mock-model", ...args], { cwd, env });
}

/** Whether session `id` of `worktree` exists as a file. */
async function sessionFileExists(worktree: string, id: string): Promise<boolean> {
  const path = join(worktree, ".replio", "sessions", `${id}.jsonl`);
  return await Deno.stat(path).then((info) => info.isFile, () => false);
}

/** The user messages the model got in request `index`. */
function userPrompts(mock: MockModel, index: number): string[] {
  return mock.requests[index]!.messages.flatMap((m) =>
    m.role === "user" ? [String(m.content)] : []
  );
}

/** Kills `child` unless it has exited, and waits for its end. */
async function endChild(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGKILL");
  } catch (error) {
    // It exited already: the usual case.
    if (!(error instanceof TypeError)) throw error;
  }
  await child.status;
}

Deno.test("replio run says a refused connection is refused, at once, and --continue sends the prompt again", async () => {
  await using wt = await tempWorktree();
  const port = refusingPort();
  const refused = `http://127.0.0.1:${port}/v1`;
  const run = await runAgainst(refused, wt.path, ["summarise the README"]);
  const id = /session (ses_\S+):/.exec(run.stderr)?.[1];
  assert.ok(id, run.stderr);
  // No "Retrying" line: nothing listens, and waiting 3.8 s would not start the server.
  assert.deepEqual(run, {
    code: 1,
    stdout: "",
    stderr: `! Error: Cannot get a reply from model "mock-model": connection refused at ` +
      `"${refused}": nothing is listening on port ${port}: start the model server, or set ` +
      "base_url (or --base-url) to the address it listens on\n(error)\n" +
      `replio: the prompt is saved in session ${id}: retry it with replio run --session ${id}\n`,
  });
  assert.ok(await sessionFileExists(wt.path, id), `session ${id} has no file`);

  await using mock = startMockModel([{ text: "A demo." }]);
  const retry = await runAgainst(mock.baseUrl, wt.path, ["--continue"]);
  assert.deepEqual(retry, {
    code: 0,
    stdout: "A demo.\n",
    stderr: '  retrying the prompt that got no reply: "summarise the README"\n',
  });
  // Sent once: the failed turn's copy stays in the file, not in what the model gets.
  assert.deepEqual(userPrompts(mock, 0), ["summarise the README"]);
  const listed = await runReplio(["sessions", "list", "--json"], { cwd: wt.path });
  assert.deepEqual(
    JSON.parse(listed.stdout).map((s: { id: string; turns: number }) => [s.id, s.turns]),
    [[id, 2]],
  );
});

Deno.test("replio run --output json names an HTML page and its first bytes, once, and the session it kept", async () => {
  await using wt = await tempWorktree();
  await using portal = startAnsweringServer(() =>
    new Response(LOGIN_PAGE, { headers: { "content-type": "text/html" } })
  );
  const run = await runAgainst(portal.baseUrl, wt.path, ["--output", "json", "list the TODOs"]);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(run.stderr, "");
  const result = JSON.parse(run.stdout);
  assert.equal(result.status, "error");
  assert.deepEqual(result.errors, [{
    code: "bad_response",
    message: `Cannot get a reply from model "mock-model": "${portal.baseUrl}" answered with an ` +
      'HTML page titled "Sign in - Corp Proxy", not an event stream: it begins "<!DOCTYPE ' +
      'html><html><head><title>Sign in - Corp Proxy</title></head><body>Sign in</body></html>": ' +
      "a proxy or login page answered instead of the model server: check base_url, your proxy " +
      "settings (HTTPS_PROXY) and that you are logged in to the network",
  }]);
  assert.deepEqual(portal.requests, ["POST /v1/chat/completions"], "an HTML page is not retried");
  assert.ok(
    await sessionFileExists(wt.path, result.session),
    `session ${result.session} has no file`,
  );

  await using mock = startMockModel([{ text: "Two TODOs." }]);
  const retry = await runAgainst(mock.baseUrl, wt.path, [
    "--output",
    "json",
    "--session",
    result.session,
  ]);
  assert.equal(retry.code, 0, retry.stderr);
  const retried = JSON.parse(retry.stdout);
  assert.deepEqual(
    [retried.status, retried.content, retried.session],
    ["ok", "Two TODOs.", result.session],
  );
  assert.deepEqual(userPrompts(mock, 0), ["list the TODOs"]);
});

Deno.test("replio run --output stream-json names the key variable on a 401, once, never the key", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ fault: "401" }, { text: "Hello." }]);
  const key = "sk-wrong-0123456789abcdef";
  const run = await runAgainst(mock.baseUrl, wt.path, ["--output", "stream-json", "hi"], {
    OPENAI_API_KEY: key,
  });
  assert.equal(run.code, 1, run.stderr);
  const events = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
  const id = events[0].id;
  assert.deepEqual(events, [
    { type: "session", id },
    {
      type: "error",
      code: "auth",
      message:
        'Cannot get a reply from model "mock-model": HTTP 401: Incorrect API key provided: ' +
        "[redacted]: set OPENAI_API_KEY to a valid API key",
    },
    {
      type: "turn_end",
      status: "error",
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    },
  ]);
  assert.equal(mock.exchanges.length, 1, "a refused key is not retried");
  assert.ok(await sessionFileExists(wt.path, id), `session ${id} has no file`);
  assert.ok(
    !(await Deno.readTextFile(join(wt.path, ".replio", "sessions", `${id}.jsonl`))).includes(key),
  );

  const retry = await runAgainst(mock.baseUrl, wt.path, ["--session", id], { OPENAI_API_KEY: key });
  assert.equal(retry.code, 0, retry.stderr);
  assert.equal(retry.stdout, "Hello.\n");
  assert.deepEqual(userPrompts(mock, 1), ["hi"]);
});

Deno.test("replio run bounds a server that accepts and never answers by stream_idle_timeout", async () => {
  await using wt = await tempWorktree({ ".xdg/replio/config.yaml": "stream_idle_timeout: 0.5\n" });
  await using silent = startSilentServer();
  const run = await runAgainst(silent.baseUrl, wt.path, ["hi"]);
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    /^! Error: Cannot get a reply from model "mock-model": no answer within 0.5 s: retry, or raise stream_idle_timeout \(now 0.5 s\) if the model needs longer\n\(error\)\nreplio: the prompt is saved in session ses_/,
  );
  assert.equal(silent.connections, 1, "a silent server is not asked again");
});

Deno.test("replio run cancels at once on Ctrl-C during a retry wait and keeps the prompt", async () => {
  await using wt = await tempWorktree();
  // The server asks for 59 s, under the minute replio waits at most: only Ctrl-C ends it sooner.
  await using mock = startMockModel([{ fault: "429", retryAfter: 59 }, { text: "Done." }]);
  const child = replioCommand(
    ["run", "--base-url", mock.baseUrl, "--model", "mock-model", "tidy up"],
    { cwd: wt.path },
  ).spawn();
  // A failed assertion must not leave replio waiting out its 59 s behind the test.
  await using _ended = { [Symbol.asyncDispose]: () => endChild(child) };
  const stdout = new Response(child.stdout).text();
  const lines = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let stderr = "";
  {
    await withDeadline(
      (async () => {
        while (!stderr.includes("Retrying in 59.0 s")) {
          const { value, done } = await lines.read();
          if (done) throw new Error(`replio ended before its retry wait: ${stderr}`);
          stderr += value;
        }
      })(),
      '"Retrying in 59.0 s" line',
    );
    child.kill("SIGINT");
    const { code } = await withDeadline(child.status, "exit after Ctrl-C during the retry wait");
    for (let read = await lines.read(); !read.done; read = await lines.read()) stderr += read.value;
    assert.equal(code, 130, stderr);
    assert.equal(await stdout, "");
  }
  const id = /session (ses_\S+):/.exec(stderr)?.[1];
  assert.ok(id, stderr);
  assert.match(stderr, /\(cancelled\)\n/);
  assert.equal(mock.exchanges.length, 1);
  const retry = await runAgainst(mock.baseUrl, wt.path, ["--session", id]);
  assert.equal(retry.stdout, "Done.\n", retry.stderr);
  assert.deepEqual(userPrompts(mock, 1), ["tidy up"]);
});

Deno.test("replio run --continue without a prompt is a usage error when the last turn got its reply", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ text: "Hi." }]);
  assert.equal((await runAgainst(mock.baseUrl, wt.path, ["hello"])).code, 0);
  const listed = await runReplio(["sessions", "list", "--json"], { cwd: wt.path });
  const [{ id }] = JSON.parse(listed.stdout);
  const run = await runAgainst(mock.baseUrl, wt.path, ["--continue"]);
  assert.deepEqual(run, {
    code: 2,
    stdout: "",
    stderr: `replio: Cannot continue session ${id} without a prompt: its last turn got a reply, ` +
      `so there is nothing to retry: pass the next prompt (replio run --session ${id} "…")\n`,
  });
  assert.equal(mock.requests.length, 1);
});

/** A running `replio serve` against `mock`; dispose stops it. */
async function serve(cwd: string, mock: MockModel) {
  const args = ["serve", "--port", "0", "--base-url", mock.baseUrl, "--model", "mock-model"];
  const child = replioCommand(args, { cwd }).spawn();
  const stderr = new Response(child.stderr).text();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let stdout = "";
  await withDeadline(
    (async () => {
      while (!stdout.includes("\n")) {
        const { value, done } = await lines.read();
        if (done) throw new Error(`replio serve did not start: ${await stderr}`);
        stdout += value;
      }
    })(),
    '"listening" line from replio serve',
  );
  const port = /:(\d+)\n/.exec(stdout)?.[1];
  return {
    base: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      child.kill("SIGTERM");
      await child.status;
      await lines.cancel();
      await stderr;
    },
  };
}

Deno.test("replio serve keeps a turn that failed before any reply under the id it returned", async () => {
  await using wt = await tempWorktree();
  await using mock = startMockModel([{ fault: "401" }, { text: "Hello again." }]);
  await using served = await serve(wt.path, mock);
  const post = async (body: unknown) => {
    const response = await fetch(`${served.base}/v1/turns`, {
      method: "POST",
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  const failed = await post({ prompt: "hi" });
  assert.equal(failed.body.status, "error");
  assert.match(
    failed.body.errors[0].message,
    /HTTP 401: .*: no API key is set: set OPENAI_API_KEY to your API key$/,
  );
  const id = failed.body.session;
  const shown = await fetch(`${served.base}/v1/sessions/${id}`);
  assert.equal(shown.status, 200, `GET /v1/sessions/${id}`);
  await shown.body?.cancel();
  const again = await post({ prompt: "hi", session: id });
  assert.deepEqual([again.body.status, again.body.content, again.body.session], [
    "ok",
    "Hello again.",
    id,
  ]);
  assert.deepEqual(userPrompts(mock, 1), ["hi"]);
});

Deno.test("the REPL keeps a session whose turn failed, says so on exit, and shows the prompt on resume", async () => {
  await using env = await setup([
    { fault: "401" },
    { text: "Hello again." },
    { fault: "401" },
    { text: "Third." },
  ]);
  let id: string;
  {
    await using repl = await TmuxRepl.start(env.wt.path, env.args, { noColor: true });
    await repl.enter("hi");
    await repl.waitFor("HTTP 401");
    await repl.keys("C-d");
    const screen = await repl.waitFor(/Session (ses_\S+) saved: replio --session ses_\S+/);
    id = /Session (ses_\S+) saved/.exec(screen)![1]!;
  }
  assert.ok(await sessionFileExists(env.wt.path, id), `session ${id} has no file`);
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--session", id], {
    noColor: true,
  });
  await repl.waitFor("(no reply: send it again to retry)");
  await repl.enter("hi");
  await repl.waitFor("Hello again.");
  assert.deepEqual(userPrompts(env.mock, 1), ["hi"]);
  // In one REPL too: a prompt that failed is not sent again before the next.
  await repl.enter("more");
  await repl.waitFor(/HTTP 401[\s\S]*>/);
  await repl.enter("more");
  await repl.waitFor("Third.");
  assert.deepEqual(userPrompts(env.mock, 3), ["hi", "more"]);
});
