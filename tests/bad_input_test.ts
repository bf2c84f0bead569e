/**
 * "No error ever ends in a Deno stack trace" (docs/errors.md): every subcommand run with bad
 * arguments, missing files, files replio cannot read and an unreachable URL exits 1 or 2 with a
 * message, and prints no stack frame (issue 23).
 *
 * What "cannot read" covers here, honestly: the tests run as root, and `chmod 000` does not stop
 * root, so an unreadable file is made the ways root still meets: a folder where a file is expected
 * (IsADirectory), a file where a folder is expected (NotADirectory), a dangling symlink, a FIFO
 * (never opened for reading: that would block, as it would for any program), and a file Deno was
 * told not to read (`--deny-read`, the NotCapable that an unprivileged user's EACCES also becomes
 * in one line, src/fs/access_error.ts). Privileges are not dropped: replio's Deno cache lives in
 * root's home, which another user could not read.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startMockModel } from "./support/mock_model.ts";
import { childEnv, runReplio } from "./support/replio_process.ts";
import { type TempWorktree, tempWorktree } from "./support/worktree.ts";

/** A stack frame as V8 prints it (`    at f (file:///x.ts:1:2)`), or Rust's backtrace. */
const STACK_FRAME = /^\s+at .*(:\d+:\d+\)?|\(<anonymous>\)|\(native\))$|Stack backtrace/m;

/**
 * A loopback port nothing listens on (taken, then let go): a connection is refused at once,
 * offline or not. Port 1 would not do: fetch refuses it before connecting.
 */
const UNREACHABLE = (() => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return `http://127.0.0.1:${listener.addr.port}`;
})();

const SESSION = "ses_20260101_000000_abc123";

interface Case {
  args: string[];
  /** Prepares the worktree (and its private global config folder `.xdg`). */
  setup?: (wt: TempWorktree) => Promise<void>;
  denoFlags?: (wt: TempWorktree) => string[];
  /** The exit code when one is documented for this mistake; else 1 or 2 will do. */
  code?: 1 | 2;
  /** Text the message must contain. */
  message?: RegExp;
}

/** A folder where a file belongs. */
const folderAt = (relative: string) => (wt: TempWorktree) =>
  Deno.mkdir(join(wt.path, relative), { recursive: true });

/** A file where a folder belongs. */
const fileAt = (relative: string) => (wt: TempWorktree) => wt.write(relative, "not a folder\n");

/** A valid session file, so the cases that need one find it. */
const aSession = (wt: TempWorktree) =>
  wt.write(
    `.replio/sessions/${SESSION}.jsonl`,
    JSON.stringify({
      type: "session",
      ts: "2026-01-01T00:00:00.000Z",
      id: SESSION,
      created: "2026-01-01T00:00:00.000Z",
      worktree: wt.path,
      model: "m",
    }) + "\n",
  );

const BAD_ARGUMENTS: Case[] = [
  { args: ["--bogus"], code: 2 },
  { args: ["run", "--max-rounds", "ten", "hi"], code: 2 },
  { args: ["run", "--bogus", "hi"], code: 2 },
  { args: ["tool"], code: 2 },
  { args: ["tool", "file_read", "{not json"], code: 2 },
  { args: ["tool", "no_such_tool"] },
  { args: ["tools", "--mode", "no-such-mode"], code: 2 },
  { args: ["permissions", "--bogus"], code: 2 },
  { args: ["doctor", "--mode", "no-such-mode"], code: 2 },
  { args: ["mcp", "--mode", "no-such-mode"], code: 2 },
  { args: ["serve", "--port", "not-a-port"], code: 2 },
  { args: ["serve", "--host", "0.0.0.0", "--port", "0"], code: 2 },
  { args: ["agents", "--bogus"], code: 2 },
  { args: ["config", "frobnicate"], code: 2 },
  { args: ["config", "get", "no_such_key"], code: 2 },
  { args: ["config", "set", "max_rounds", "ten"], code: 2 },
  { args: ["policy"] },
  { args: ["policy", "test"], code: 2 },
  { args: ["policy", "explain", "no_such_tool"] },
  { args: ["policy", "explain", "file_read", "[1"], code: 2 },
  { args: ["approve", "no-such-session"] },
  { args: ["deny", "../escape"] },
  { args: ["replay", "no-such-session"], code: 2 },
  { args: ["trust", "--remove"], code: 2 },
  { args: ["trust", "/nonexistent/folder"] },
  { args: ["plugin", "frobnicate"], code: 2 },
  { args: ["plugin", "add"], code: 2 },
  { args: ["plugin", "add", "not a url"], code: 2 },
  { args: ["plugin", "remove", "http://127.0.0.1/never-added.js"] },
  { args: ["sessions", "show", "no-such-session"] },
  { args: ["sessions", "show", "../escape"] },
  { args: ["sessions", "gc", "--days", "soon"], code: 2 },
  { args: ["sessions", "frobnicate"], code: 2 },
  { args: ["help", "frobnicate"], code: 2 },
  { args: ["--path", "/nonexistent/folder", "tools"] },
  { args: ["run", "--path", "/nonexistent/folder", "hi"] },
];

const MISSING_FILES: Case[] = [
  {
    args: ["policy", "test", "--all", "--config", "proposd.yaml"],
    code: 2,
    message: /no such file/,
  },
  {
    args: ["policy", "test", "--all", "--config", "dangling.yaml"],
    setup: (wt) => Deno.symlink(join(wt.path, "gone.yaml"), join(wt.path, "dangling.yaml")),
    code: 2,
    message: /no such file/,
  },
  { args: ["replay", "missing.jsonl"], code: 2 },
  {
    args: ["replay", "dangling.jsonl"],
    setup: (wt) => Deno.symlink(join(wt.path, "gone.jsonl"), join(wt.path, "dangling.jsonl")),
    code: 2,
  },
  {
    args: ["replay", "fifo.jsonl"],
    setup: async (wt) => {
      const made = await new Deno.Command("mkfifo", { args: [join(wt.path, "fifo.jsonl")] })
        .output();
      assert.ok(made.success, "mkfifo");
    },
    code: 2,
  },
  { args: ["policy", "test", "--against", "missing.jsonl"], code: 2 },
  { args: ["run", "--session", "no-such-session", "--continue", "hi"] },
];

const PROJECT_CONFIG_FOLDER = folderAt(".replio/config.yaml");
const GLOBAL_CONFIG_FOLDER = folderAt(".xdg/replio/config.yaml");
const GLOBAL_FOLDER_FILE = fileAt(".xdg/replio");
const SESSION_FOLDER = folderAt(`.replio/sessions/${SESSION}.jsonl`);
const SESSIONS_FILE = fileAt(".replio/sessions");

const UNREADABLE_FILES: Case[] = [
  ...[
    ["tools", "--trust"],
    ["tool", "file_read", '{"path":"a"}', "--trust"],
    ["run", "--trust", "hi"],
    ["agents", "--trust"],
    ["config", "get", "model", "--trust"],
    // Edits the file whatever the trust: the person at the keyboard asked for it.
    ["config", "set", "max_rounds", "3"],
    ["mcp", "--trust"],
    ["policy", "explain", "file_read", '{"path":"a"}', "--trust"],
  ].map((args): Case => ({
    args,
    setup: PROJECT_CONFIG_FOLDER,
    code: 2,
    message: /is a folder/,
  })),
  ...[
    ["tools"],
    ["run", "hi"],
    ["config", "get", "model"],
    ["config", "set", "--global", "max_rounds", "3"],
    ["trust"],
    ["trust", "--list"],
    ["plugin", "list", "--global"],
    ["permissions"],
  ].map((args): Case => ({
    args,
    setup: GLOBAL_CONFIG_FOLDER,
    code: 2,
    message: /is a folder/,
  })),
  ...[["tools"], ["trust"], ["config", "set", "--global", "max_rounds", "3"]].map((
    args,
  ): Case => ({ args, setup: GLOBAL_FOLDER_FILE, code: 2, message: /is a file/ })),
  ...[["sessions", "show", SESSION], ["sessions", "show", SESSION, "--json"]].map((
    args,
  ): Case => ({ args, setup: SESSION_FOLDER, code: 1, message: /is a folder/ })),
  // These look sessions up by id, and a folder is no session file: "no such session", exit 2.
  ...[
    ["replay", SESSION],
    ["policy", "test", "--against", SESSION],
    ["approve", SESSION],
    ["deny", SESSION],
  ].map((args): Case => ({ args, setup: SESSION_FOLDER, code: 2 })),
  ...[
    ["sessions", "list"],
    ["sessions", "gc"],
    ["sessions", "show", SESSION],
    ["policy", "test", "--all"],
  ].map((args): Case => ({ args, setup: SESSIONS_FILE, message: /is a file/ })),
  {
    args: ["policy", "test", "--all", "--config", "proposed"],
    setup: folderAt("proposed"),
    code: 2,
    message: /is a folder/,
  },
  {
    args: ["sessions", "show", SESSION],
    setup: aSession,
    denoFlags: (wt) => [
      "--allow-all",
      `--deny-read=${join(wt.path, ".replio/sessions", `${SESSION}.jsonl`)}`,
    ],
    code: 1,
    message: /Requires read access/,
  },
];

const UNREACHABLE_URLS: Case[] = [
  { args: ["plugin", "add", `${UNREACHABLE}/shout.js`, "--yes"], code: 1, message: /127\.0\.0\.1/ },
  {
    args: ["plugin", "add", `${UNREACHABLE}/shout.js`, "--yes", "--global"],
    code: 1,
    message: /127\.0\.0\.1/,
  },
  { args: ["run", "--base-url", `${UNREACHABLE}/v1`, "--model", "m", "hi"], code: 1 },
  { args: ["serve", "--base-url", "not a url"], code: 2 },
];

/** Runs one case in a fresh worktree and checks its outcome; returns a problem or null. */
async function check(c: Case): Promise<string | null> {
  await using wt = await tempWorktree({ "a.txt": "a\n" });
  await c.setup?.(wt);
  const ran = await runReplio(c.args, {
    cwd: wt.path,
    ...(c.denoFlags ? { denoFlags: c.denoFlags(wt) } : {}),
  });
  const output = `${ran.stdout}${ran.stderr}`;
  const shown = `replio ${c.args.join(" ")} exited ${ran.code}:\n${output}`;
  if (STACK_FRAME.test(output)) return `a stack trace: ${shown}`;
  if (c.code !== undefined ? ran.code !== c.code : ran.code !== 1 && ran.code !== 2) {
    return `exit ${ran.code}, expected ${c.code ?? "1 or 2"}: ${shown}`;
  }
  if (output.trim() === "") return `no message: ${shown}`;
  if (c.message && !c.message.test(output)) return `no ${c.message}: ${shown}`;
  return null;
}

/** Checks every case, a few processes at a time, and reports all the failures together. */
async function checkAll(cases: Case[]): Promise<void> {
  const problems: string[] = [];
  const queue = [...cases];
  // Two at a time: the machine has two cores, shared with the other test files.
  await Promise.all([0, 1].map(async () => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const problem = await check(c);
      if (problem) problems.push(problem);
    }
  }));
  assert.deepEqual(problems, [], problems.join("\n\n"));
}

Deno.test("bad arguments to every subcommand: exit 1 or 2 with a message, no stack trace", () =>
  checkAll(BAD_ARGUMENTS));

Deno.test("missing files: exit 1 or 2 with a message, no stack trace", () =>
  checkAll(MISSING_FILES));

Deno.test("a folder where a file belongs, a file where a folder belongs, a read Deno refuses: one clear line", () =>
  checkAll(UNREADABLE_FILES));

Deno.test("an unreachable URL: exit 1 with a message naming it, no stack trace", () =>
  checkAll(UNREACHABLE_URLS));

Deno.test("replio run with a session it cannot read or write: one clear line, exit 1 or 2", async () => {
  await using mock = startMockModel(Array.from({ length: 4 }, () => ({ text: "Hello." })));
  const model = ["--base-url", mock.baseUrl, "--model", "mock-model"];
  await checkAll([
    { args: ["run", ...model, "hi"], setup: SESSIONS_FILE, message: /is a file/ },
    { args: ["run", ...model, "--continue", "hi"], setup: SESSIONS_FILE, message: /is a file/ },
    { args: ["run", ...model, "--session", SESSION, "hi"], setup: SESSION_FOLDER },
    { args: ["run", ...model, "--session", SESSION, "hi"], setup: SESSIONS_FILE },
  ]);
});

Deno.test("an untrusted folder whose config is a folder still runs: the file is ignored", async () => {
  await using wt = await tempWorktree();
  await PROJECT_CONFIG_FOLDER(wt);
  const ran = await runReplio(["tools"], { cwd: wt.path });
  assert.equal(ran.code, 0, ran.stderr);
  assert.doesNotMatch(ran.stderr, STACK_FRAME);
  assert.match(ran.stderr, /ignored \.replio\/config\.yaml \(invalid.*is a folder/);
});

/**
 * Runs replio's `main` in a child whose `Deno.readTextFile` is broken the way a bug would break
 * it (a TypeError no code expects), then, with `stray`, rejects a promise nobody awaits.
 */
async function runWithInjectedBug(wt: TempWorktree, options: { debug: boolean; stray: boolean }) {
  const script = join(wt.path, "bug.ts");
  await Deno.writeTextFile(
    script,
    `import { main } from ${JSON.stringify(new URL("../src/cli/main.ts", import.meta.url).href)};
${
      options.stray
        ? `await main(["config", "get", "model"]);
Promise.reject(new TypeError("a stray injected bug"));
await new Promise((resolve) => setTimeout(resolve, 60_000));`
        : `Deno.readTextFile = () => Promise.reject(new TypeError("an injected bug"));
Deno.exit(await main(["config", "get", "model"]));`
    }
`,
  );
  const env = childEnv(wt.path, options.debug ? { REPLIO_DEBUG: "1" } : {});
  const out = await new Deno.Command(Deno.execPath(), {
    // The repository's import map, as replio itself runs with it.
    args: [
      "run",
      "--no-prompt",
      "-A",
      "--config",
      new URL("../deno.json", import.meta.url).pathname,
      script,
    ],
    cwd: wt.path,
    clearEnv: true,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

const BUG_REPORT = "replio: this is a bug in replio: please report it with the command you ran " +
  "(REPLIO_DEBUG=1 adds where it happened)\n";

Deno.test("an unexpected error is one line and a request to report it; REPLIO_DEBUG=1 adds the stack", async () => {
  await using wt = await tempWorktree();
  const plain = await runWithInjectedBug(wt, { debug: false, stray: false });
  assert.deepEqual(plain, {
    code: 1,
    stderr: `replio: unexpected error: TypeError: an injected bug\n${BUG_REPORT}`,
  });
  // Control: the stack exists, and the variable shows it.
  const debug = await runWithInjectedBug(wt, { debug: true, stray: false });
  assert.equal(debug.code, 1);
  assert.ok(debug.stderr.startsWith(plain.stderr), debug.stderr);
  assert.match(debug.stderr, STACK_FRAME);
});

Deno.test("an error no caller awaits ends the process the same way", async () => {
  await using wt = await tempWorktree();
  assert.deepEqual(await runWithInjectedBug(wt, { debug: false, stray: true }), {
    code: 1,
    stderr: `replio: unexpected error: TypeError: a stray injected bug\n${BUG_REPORT}`,
  });
});
