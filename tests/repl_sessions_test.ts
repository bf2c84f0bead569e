/**
 * Sessions and models in the REPL (tmux, issue #25): `--continue` opens the session last used
 * (after `/session load`, not the newest file), a `/model` switch is kept in the session and
 * restored on resume unless `--model` is given, Tab completes session ids after `/session load`,
 * `/model` alone opens a picker of the endpoint's models, and a session with damaged lines says
 * so in one line when it is resumed or loaded.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { lastUserContent, setup, TmuxRepl } from "./support/tmux_repl.ts";

/** Runs one REPL: sends `prompt`, waits for `answer`, then quits; returns the saved session id. */
async function oneTurn(
  worktree: string,
  args: string[],
  prompt: string,
  answer: string,
  before: [command: string, said: string][] = [],
): Promise<string> {
  await using repl = await TmuxRepl.start(worktree, args);
  // Each command's own answer before the next line: two lines typed at once read as a paste.
  for (const [command, said] of before) {
    await repl.enter(command);
    await repl.waitFor(said);
  }
  await repl.enter(prompt);
  await repl.waitFor(answer);
  await repl.waitForPrompt();
  await repl.keys("C-d");
  await repl.waitForExit();
  return savedId(await repl.screen());
}

/** The id the exit line names. */
function savedId(screen: string): string {
  const id = /Session (\S+) saved: replio --session/.exec(screen)?.[1];
  assert.ok(id, `the exit line names the session:\n${screen}`);
  return id;
}

Deno.test("repl --continue opens the session last used, even after /session load of an older one", async () => {
  await using env = await setup([
    { text: "First answer." },
    { text: "Second answer." },
    { text: "Back in the first." },
  ]);
  const first = await oneTurn(env.wt.path, env.args, "the first topic", "First answer.");
  let second: string;
  {
    await using repl = await TmuxRepl.start(env.wt.path, env.args);
    await repl.enter("the second topic");
    await repl.waitFor("Second answer.");
    await repl.waitForPrompt();
    await repl.enter("/session list");
    second = /\* (ses_\S+)/.exec(await repl.waitFor(/\* ses_\S+/))![1]!;
    await repl.enter(`/session load ${first}`);
    await repl.waitFor(`Continuing session ${first}`);
    await repl.waitForPrompt();
    await repl.keys("C-d");
    await repl.waitForExit();
    assert.equal(savedId(await repl.screen()), first, "the exit line names the loaded session");
  }
  // The control: the session left behind is the newer file, which --continue used to open.
  const mtime = async (id: string) =>
    (await Deno.stat(join(env.wt.path, ".replio", "sessions", `${id}.jsonl`))).mtime!.getTime();
  assert.ok(await mtime(second) > await mtime(first), "the second session is the newest file");
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--continue"]);
  await repl.waitFor(`continuing session ${first} (1 turn)`);
  await repl.enter("go on");
  await repl.waitFor("Back in the first.");
  const contents = env.mock.requests[2]!.messages.map((m) => m.content);
  assert.ok(contents.includes("the first topic") && !contents.includes("the second topic"));
});

Deno.test("repl keeps a /model switch in the session and --continue resumes with it", async () => {
  await using env = await setup(
    [{ text: "Big hello." }, { text: "Still big." }, { text: "Small again." }],
    { models: ["mock-model", "fake-big"] },
  );
  const id = await oneTurn(env.wt.path, env.args, "hello", "Big hello.", [[
    "/model fake-big",
    "Model fake-big",
  ]]);
  assert.equal(env.mock.requests[0]!.model, "fake-big");
  const file = await Deno.readTextFile(join(env.wt.path, ".replio", "sessions", `${id}.jsonl`));
  assert.match(file, /\n\{"type":"model","ts":"[^"]+","model":"fake-big"\}\n\{"type":"turn_start"/);
  // No --model: the session's model wins over the configured default.
  const base = ["--base-url", env.mock.baseUrl];
  {
    await using repl = await TmuxRepl.start(env.wt.path, [...base, "--continue"]);
    const banner = await repl.screen();
    assert.match(banner, /· model fake-big ·/);
    await repl.enter("again");
    await repl.waitFor("Still big.");
    await repl.waitForPrompt();
    await repl.keys("C-d");
    await repl.waitForExit();
  }
  assert.equal(env.mock.requests[1]!.model, "fake-big");
  // The control: --model names the model for this REPL, whatever the session used.
  await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--continue"]);
  await repl.enter("and now?");
  await repl.waitFor("Small again.");
  assert.equal(env.mock.requests[2]!.model, "mock-model");
});

Deno.test("repl Tab completes session ids after /session load", async () => {
  await using env = await setup([{ text: "Noted." }]);
  const id = await oneTurn(env.wt.path, env.args, "note this", "Noted.");
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.type("/session load ses_");
  await repl.keys("Tab");
  await repl.waitFor(`> /session load ${id}`);
  await repl.keys("Enter");
  await repl.waitFor(`Continuing session ${id} (1 turn)`);
});

Deno.test("repl /model alone opens a picker of the endpoint's models; Enter switches, Esc keeps", async () => {
  await using env = await setup([{ text: "From the big one." }], {
    models: ["mock-model", "fake-big"],
  });
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("/model");
  await repl.waitFor("Choose a model (2)");
  await repl.waitFor("› mock-model (current)");
  await repl.keys("Escape");
  await repl.waitFor("Model mock-model (unchanged)");
  await repl.waitForPrompt();
  await repl.enter("/model");
  // The second picker's own rows: the first one's are still on the screen.
  await repl.waitFor(/Choose a model[\s\S]*Choose a model[^\n]*\n› mock-model \(current\)/);
  await repl.keys("Down");
  await repl.waitFor("› fake-big");
  await repl.keys("Enter");
  await repl.waitFor(/\nModel fake-big\n/);
  await repl.waitForPrompt();
  await repl.enter("hi");
  await repl.waitFor("From the big one.");
  assert.equal(env.mock.requests[0]!.model, "fake-big");
  assert.equal(lastUserContent(env.mock, 0), "hi");
});

Deno.test("repl says in one line that a resumed or loaded session had damaged lines", async () => {
  await using env = await setup([{ text: "Kept." }, { text: "Still here." }]);
  const id = await oneTurn(env.wt.path, env.args, "keep this", "Kept.");
  const path = join(env.wt.path, ".replio", "sessions", `${id}.jsonl`);
  const lines = (await Deno.readTextFile(path)).split("\n");
  // Two hand-damaged lines in the middle: not the last one, which a crash may cut.
  lines.splice(2, 0, "{not json", '{"type":"later","ts":"x"}');
  await Deno.writeTextFile(path, lines.join("\n"));
  const warning = new RegExp(
    `warning: session ${id}: Skipped line 3: [^\\n]+ \\(and 1 more\\); replio sessions show ${id} ` +
      "lists what was skipped",
  );
  {
    await using repl = await TmuxRepl.start(env.wt.path, [...env.args, "--continue"]);
    // Wrapped to the terminal, it is still one message.
    const screen = (await repl.screen()).replace(/\n {2}/g, " ");
    assert.match(screen, warning);
    assert.equal(screen.match(/Skipped line/g)?.length, 1, screen);
    await repl.enter("go on");
    await repl.waitFor("Still here.");
    await repl.waitForPrompt();
    await repl.keys("C-d");
    await repl.waitForExit();
  }
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter(`/session load ${id}`);
  await repl.waitFor("lists what was");
  assert.match((await repl.screen()).replace(/\n {2}/g, " "), warning);
});
