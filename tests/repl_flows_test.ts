/**
 * Keys and flows of the REPL in a real terminal (tmux): Ctrl-D, interrupts, errors, approvals.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { sessionRecords, setup, TmuxRepl } from "./support/tmux_repl.ts";
import { tempWorktree } from "./support/worktree.ts";

Deno.test("repl Ctrl-D at a y/N prompt declines the call and the REPL keeps running", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch made_by_tool" } }] },
    { text: "Understood, not run." },
    { text: "Still running." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("make a file");
  await repl.waitFor("[y/N");
  await repl.keys("C-d");
  await repl.waitFor("Understood, not run.");
  await repl.waitForPrompt();
  await assert.rejects(Deno.stat(join(env.wt.path, "made_by_tool")), Deno.errors.NotFound);
  await repl.enter("still there?");
  await repl.waitFor("Still running.");
  const screen = await repl.screen();
  assert.ok(!screen.includes("ERR_USE_AFTER_CLOSE"), screen);
});

Deno.test("repl Ctrl-D at an ask prompt cancels the question and the REPL keeps running", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "ask", arguments: { question: "Which colour?" } }] },
    { text: "Still running." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("pick a colour");
  await repl.waitFor("answer:");
  await repl.keys("C-d");
  await repl.waitFor("(cancelled)");
  await repl.waitForPrompt();
  await repl.enter("still there?");
  await repl.waitFor("Still running.");
  const records = await sessionRecords(env.wt.path);
  assert.equal(records.find((r) => r.type === "turn_end")?.status, "cancelled");
});

Deno.test("repl Ctrl-D at a continuation prompt drops the half-typed message and keeps running", async () => {
  await using env = await setup([{ text: "Got the second message." }]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("first half \\");
  await repl.waitFor(/\n…\s*$/, "the continuation prompt");
  await repl.keys("C-d");
  await repl.waitForPrompt();
  await repl.enter("second message");
  await repl.waitFor("Got the second message.");
  assert.equal(env.mock.requests.length, 1);
  const sent = env.mock.requests[0]!.messages.findLast((m) => m.role === "user")?.content;
  assert.equal(sent, "second message");
});

Deno.test("repl Ctrl-C mid-word ends the answer's line with an interrupted mark", async () => {
  await using env = await setup([
    { text: "The answer is ver", chunkSize: 100, fault: "hang", faultAfter: 2 },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("answer slowly");
  // "ver" may still be held back as an unfinished word; "is" is on screen once streaming began.
  await repl.waitFor("The answer is");
  await repl.keys("C-c");
  await repl.waitFor("The answer is ver… (interrupted)\n(cancelled)");
  await repl.waitForPrompt();
});

Deno.test("repl names the network, not the model, when the server refuses connections", async () => {
  await using wt = await tempWorktree();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closedPort = listener.addr.port;
  listener.close();
  await using repl = await TmuxRepl.start(wt.path, [
    "--base-url",
    `http://127.0.0.1:${closedPort}/v1`,
  ]);
  const screen = await repl.screen();
  assert.match(screen, /cannot connect: Connection refused/);
  assert.match(screen, /check that the server is running, base_url is right and the network is up/);
  assert.ok(!/config (set )?model/.test(screen), screen);
});

Deno.test("repl shows a declined edit's diff as not applied and keeps the file", async () => {
  await using env = await setup([
    {
      toolCalls: [{
        name: "file_edit",
        arguments: { path: "README.md", old: "Hello readme.", new: "Goodbye readme." },
      }],
    },
    { text: "Left it alone." },
  ]);
  await env.wt.write(".replio/config.yaml", "tool_permission:\n  edit: ask\n");
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("change the greeting");
  await repl.waitFor("+Goodbye readme.");
  await repl.waitFor("[y/N");
  await repl.keys("n");
  const screen = await repl.waitFor("Left it alone.");
  assert.match(screen, /✗ Not applied: you declined it/);
  assert.ok(!screen.includes("do not retry"), screen);
  assert.equal(await env.wt.read("README.md"), "# Demo\n\nHello readme.\n");
});

Deno.test("repl --continue opens the latest session and re-prints its last exchange", async () => {
  await using env = await setup([{ text: "Noted: the colour is blue." }, { text: "Blue." }]);
  {
    await using repl = await TmuxRepl.start(env.wt.path, env.args);
    await repl.enter("remember blue");
    await repl.waitFor("Noted: the colour is blue.");
    await repl.waitForPrompt();
    await repl.keys("C-d");
    await repl.waitForExit();
  }
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--continue"]);
  const screen = await repl.screen();
  assert.match(
    screen,
    /continuing session ses_\S+ \(1 turn\)\n> remember blue\nNoted: the colour is blue\./,
  );
  await repl.enter("which colour?");
  await repl.waitFor("Blue.");
  const contents = env.mock.requests[1]!.messages.map((m) => m.content);
  assert.ok(contents.includes("remember blue"), "the history was sent");
});

Deno.test("repl --resume picks a session with the arrow keys", async () => {
  await using env = await setup([{ text: "First answer." }, { text: "Second answer." }, {
    text: "Back in the first.",
  }]);
  for (const prompt of ["the first topic", "the second topic"]) {
    await using repl = await TmuxRepl.start(env.wt.path, env.args);
    await repl.enter(prompt);
    await repl.waitFor(/(First|Second) answer\./);
    await repl.waitForPrompt();
    await repl.keys("C-d");
    await repl.waitForExit();
  }
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--resume"], {
    waitForPrompt: false,
  });
  await repl.waitFor(/› .*1 turn +the second topic/);
  await repl.keys("Down");
  await repl.waitFor(/› .*1 turn +the first topic/);
  await repl.keys("Enter");
  await repl.waitFor("> the first topic\nFirst answer.");
  await repl.waitForPrompt();
  await repl.enter("go on");
  await repl.waitFor("Back in the first.");
  const contents = env.mock.requests[2]!.messages.map((m) => m.content);
  assert.ok(contents.includes("the first topic") && !contents.includes("the second topic"));
});

Deno.test("repl 'a' allows a command prefix for the session, shown first; /permissions removes it", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "ls -a" } }] },
    { toolCalls: [{ name: "run_command", arguments: { command: "ls -la" } }] },
    { text: "Listed twice." },
    { toolCalls: [{ name: "run_command", arguments: { command: "ls -l" } }] },
    { text: "Asked again." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("list the files twice");
  await repl.waitFor('a: always allow run_command commands starting with "ls" in this session');
  await repl.waitFor("[y/N] (a always, e edit, t tell why)");
  await repl.keys("a");
  await repl.waitFor("Listed twice.");
  await repl.waitForPrompt();
  const screen = await repl.screen();
  assert.ok(!screen.includes("Allow $ Run ls -la"), "the second ls ran without asking");
  const audit = (await sessionRecords(env.wt.path)).filter((r) => r.type === "permission");
  assert.deepEqual(audit.map((r) => [r.decision, r.reason]), [
    ["granted", 'tool_permission.bash; always: run_command commands starting with "ls"'],
    ["granted", 'approved: run_command commands starting with "ls"'],
  ]);
  await repl.enter("/permissions");
  await repl.waitFor('1. run_command commands starting with "ls"');
  // How each tool's calls run (docs/sandbox.md): file tools in-process, commands by bwrap or not.
  const listed = await repl.waitFor(/file_read +allow +in-process/);
  assert.match(listed, /run_command +ask +(bwrap\(|none)/);
  await repl.enter("/permissions remove 1");
  await repl.waitFor('Removed: run_command commands starting with "ls"; it asks again');
  await repl.enter("list once more");
  await repl.waitFor("Allow $ Run ls -l ");
  await repl.keys("y");
  await repl.waitFor("Asked again.");
});

Deno.test("repl 'e' edits the command before it runs and tells the model", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch wrong_name" } }] },
    { text: "Done." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("make a file");
  await repl.waitFor("[y/N] (a always, e edit, t tell why)");
  await repl.keys("e");
  await repl.waitFor(/edit: touch wrong_name\s*$/, "the command to edit");
  await repl.keys("C-u");
  await repl.enter("touch right_name");
  await repl.waitFor("Done.");
  await Deno.stat(join(env.wt.path, "right_name"));
  await assert.rejects(Deno.stat(join(env.wt.path, "wrong_name")), Deno.errors.NotFound);
  const toolMessage = env.mock.requests[1]!.messages.at(-1)!;
  assert.match(
    String(toolMessage.content),
    /^\(the user edited command before it ran: touch right_name\)\nexit 0/,
  );
});

Deno.test("repl /diff shows a turn's edit and write, and /undo puts both back", async () => {
  await using env = await setup([
    {
      toolCalls: [
        {
          name: "file_edit",
          arguments: { path: "README.md", old: "Hello readme.", new: "Goodbye readme." },
        },
        { name: "file_write", arguments: { path: "notes/new.txt", content: "fresh\n" } },
      ],
    },
    { text: "Edited and wrote." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("change things");
  await repl.waitFor("Edited and wrote.");
  await repl.waitForPrompt();
  assert.equal(await env.wt.read("README.md"), "# Demo\n\nGoodbye readme.\n");
  await repl.enter("/diff");
  await repl.waitFor("+++ b/notes/new.txt");
  const diff = await repl.screen();
  assert.match(
    diff,
    /--- a\/README\.md\n\+\+\+ b\/README\.md\n@@ .* @@\n # Demo\n *\n-Hello readme\.\n\+Goodbye readme\./,
  );
  assert.match(diff, /--- \/dev\/null\n\+\+\+ b\/notes\/new\.txt\n@@ .* @@\n\+fresh/);
  await repl.enter("/undo");
  await repl.waitFor("removed notes/new.txt (the turn created it)");
  assert.match(
    await repl.screen(),
    /Undid turn 1:\n {2}restored README\.md\n {2}removed notes\/new\.txt/,
  );
  assert.equal(await env.wt.read("README.md"), "# Demo\n\nHello readme.\n");
  await assert.rejects(Deno.stat(join(env.wt.path, "notes/new.txt")), Deno.errors.NotFound);
  await repl.enter("/undo");
  await repl.waitFor("Nothing to undo");
});

Deno.test("repl Esc mid-stream cancels the turn like Ctrl-C", async () => {
  await using env = await setup([
    { text: "Partial answer so far ", chunkSize: 100, fault: "hang", faultAfter: 2 },
    { text: "Still here." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("write a long story");
  await repl.waitFor("Partial answer so far");
  await repl.keys("Escape");
  await repl.waitFor("(cancelled)");
  await repl.waitForPrompt();
  assert.equal(
    (await sessionRecords(env.wt.path)).findLast((r) => r.type === "turn_end")?.status,
    "cancelled",
  );
  await repl.enter("are you there?");
  await repl.waitFor("Still here.");
});

for (const width of [80, 200]) {
  Deno.test(`repl shows a status line that fits ${width} columns: model, mode, context, cost`, async () => {
    await using env = await setup([{
      text: "Answered.",
      usage: { prompt_tokens: 12_345, completion_tokens: 55, cost: 0.0123 },
    }]);
    await using repl = await TmuxRepl.start(env.wt.path, env.args, { width, noColor: true });
    await repl.enter("hello");
    await repl.waitFor("Answered.");
    await repl.waitForPrompt();
    const line = (await repl.screen()).split("\n").find((l) => /128(,000|k)/.test(l));
    assert.equal(
      line,
      width === 200
        ? "model mock-model · mode default · context 12,400 / 128,000 tokens (10%) · cost $0.0123"
        : "mock-model · default · 12.4k/128k (10%) · $0.0123",
    );
  });
}

Deno.test("repl warns before sending a message that cannot fit the context window", async () => {
  await using env = await setup([{ text: "Got the short one." }]);
  await env.wt.write(".replio/config.yaml", "context_window: 1024\n");
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--trust"]);
  await repl.paste("word ".repeat(1200) + "\nsecond line\n");
  await repl.waitFor("[paste #1");
  await repl.keys("Enter");
  const screen = await repl.waitFor("Send anyway? [y/N]");
  assert.match(screen.replace(/\n +/g, " "), /together they exceed context_window \(1,024\)/);
  await repl.enter("n");
  await repl.waitForPrompt();
  assert.equal(env.mock.requests.length, 0);
  await repl.enter("short one");
  await repl.waitFor("Got the short one.");
});

Deno.test("repl @path completes with Tab and attaches the file through the policy", async () => {
  await using env = await setup([{ text: "It greets the reader." }]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.type("what does @REA");
  await repl.keys("Tab");
  await repl.waitFor(/> what does @README\.md\s*$/, "the completed mention");
  await repl.type(" say? cc @someone");
  await repl.keys("Enter");
  await repl.waitFor("← Read README.md");
  await repl.waitFor("It greets the reader.");
  const sent = String(env.mock.requests[0]!.messages.findLast((m) => m.role === "user")?.content);
  assert.match(
    sent,
    /^what does @README\.md say\? cc @someone\n\n<attached path="README\.md">\n# README\.md - 3 lines.*\n1\t# Demo\n[^]*Hello readme\.\n[^]*<\/attached>$/,
  );
  const audit = (await sessionRecords(env.wt.path)).filter((r) => r.type === "permission");
  assert.deepEqual(audit.map((r) => [r.tool, r.decision]), [["file_read", "granted"]]);
});

Deno.test("repl /model checks the name against the endpoint's list and completes from it", async () => {
  await using env = await setup([{ text: "From the other model." }], {
    models: ["mock-model", "mock-large"],
  });
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("/model mock-lareg");
  await repl.waitFor('Cannot use model "mock-lareg": the endpoint does not list it: did you mean');
  assert.match(await repl.screen(), /did you mean "mock-large"/);
  await repl.type("/model mock-l");
  await repl.keys("Tab");
  await repl.waitFor(/> \/model mock-large\s*$/, "the completed model name");
  await repl.keys("Enter");
  await repl.waitFor(/Model mock-large\n/);
  await repl.enter("hi");
  await repl.waitFor("From the other model.");
  assert.equal(env.mock.requests[0]!.model, "mock-large");
});

Deno.test("repl shows a one-line notice with the reason and the delay when it retries", async () => {
  await using env = await setup([{ fault: "429", retryAfter: 0 }, { text: "Got through." }]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("hello");
  await repl.waitFor("Got through.");
  assert.match(
    await repl.screen(),
    /Retrying in 0\.0 s \(attempt 2 of 4\): HTTP 429: Rate limit reached for mock-model: retry later\n/,
  );
});

Deno.test("repl /init has the model write AGENTS.md through the tools, and keeps an existing one", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
    {
      toolCalls: [{
        name: "file_write",
        arguments: { path: "AGENTS.md", content: "# Demo\n\nRun the tests with `make test`.\n" },
      }],
    },
    { text: "Wrote AGENTS.md." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("/init");
  await repl.waitFor("Wrote AGENTS.md.");
  await repl.waitForPrompt();
  assert.equal(await env.wt.read("AGENTS.md"), "# Demo\n\nRun the tests with `make test`.\n");
  const prompt = String(env.mock.requests[0]!.messages.findLast((m) => m.role === "user")?.content);
  assert.match(prompt, /^Take a quick look at this repository and write AGENTS\.md/);
  await repl.enter("/init");
  await repl.waitFor("AGENTS.md exists already");
  assert.equal(env.mock.requests.length, 3);
});

Deno.test("repl /tools and /help git_commit show the rule git_commit follows: it always asks", async () => {
  await using env = await setup([]);
  await env.wt.write(".replio/config.yaml", "tool_permission:\n  edit: allow\n");
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--trust"], { width: 200 });
  await repl.enter("/tools");
  await repl.waitFor(/\ngit_commit +write +edit +ask +\(git_commit always confirms\)/);
  await repl.enter("/help git_commit");
  await repl.waitFor("action ask (git_commit always confirms)");
});

Deno.test("repl Ctrl-D in the resume picker starts a new session", async () => {
  await using env = await setup([{ text: "Old." }, { text: "Fresh." }]);
  {
    await using repl = await TmuxRepl.start(env.wt.path, env.args);
    await repl.enter("old topic");
    await repl.waitFor("Old.");
    await repl.waitForPrompt();
    await repl.keys("C-d");
    await repl.waitForExit();
  }
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--resume"], {
    waitForPrompt: false,
  });
  await repl.waitFor("› ");
  await repl.keys("C-d");
  await repl.waitForPrompt();
  await repl.enter("new topic");
  await repl.waitFor("Fresh.");
  const contents = env.mock.requests[1]!.messages.map((m) => m.content);
  assert.ok(!contents.includes("old topic"), "a new session has no old history");
});

Deno.test("repl Esc at a y/N prompt cancels the turn like Ctrl-C", async () => {
  await using env = await setup([
    { toolCalls: [{ name: "run_command", arguments: { command: "touch made_by_tool" } }] },
    { text: "Back." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("make a file");
  await repl.waitFor("[y/N]");
  await repl.keys("Escape");
  await repl.waitFor("(cancelled)");
  await repl.waitForPrompt();
  await assert.rejects(Deno.stat(join(env.wt.path, "made_by_tool")), Deno.errors.NotFound);
  assert.equal(env.mock.requests.length, 1);
  await repl.enter("hello");
  await repl.waitFor("Back.");
});

Deno.test("repl /session load with a mistyped id names the closest sessions", async () => {
  await using env = await setup([{ text: "Saved." }]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("something to save");
  await repl.waitFor("Saved.");
  await repl.waitForPrompt();
  const [id] = (await Array.fromAsync(Deno.readDir(join(env.wt.path, ".replio", "sessions"))))
    .map((e) => e.name).filter((n) => n.endsWith(".jsonl")).map((n) => n.slice(0, -6));
  const typo = id!.slice(0, -1) + (id!.endsWith("a") ? "b" : "a");
  await repl.enter(`/session load ${typo}`);
  const screen = (await repl.waitFor("(/session list)")).replace(/\n +/g, " ");
  assert.ok(
    screen.includes(`Cannot load session "${typo}": no such session here: did you mean "${id}"?`),
    screen,
  );
});

/** The session files a worktree holds. */
async function sessionFiles(worktree: string): Promise<string[]> {
  try {
    const entries = await Array.fromAsync(Deno.readDir(join(worktree, ".replio", "sessions")));
    return entries.filter((e) => e.isFile && e.name.endsWith(".jsonl")).map((e) => e.name);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

Deno.test("a REPL quit before any answer leaves no session; one answered leaves one (control)", async () => {
  await using env = await setup([{ text: "Hello there." }]);
  {
    await using repl = await TmuxRepl.start(env.wt.path, env.args);
    await repl.keys("C-d");
    await repl.waitForExit();
  }
  assert.deepEqual(await sessionFiles(env.wt.path), []);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("hi");
  await repl.waitFor("Hello there.");
  await repl.keys("C-d");
  await repl.waitForExit();
  assert.equal((await sessionFiles(env.wt.path)).length, 1);
});
