/**
 * The REPL and the terminal around it (issue #23), in real tmux against the mock model: a
 * resize while an answer streams, output that arrives while a prompt is shown, and the first
 * start on an empty Deno cache. Waits watch the screen, each with a deadline.
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { waitUntil as waitLong } from "./support/deadline.ts";
import { setup, shellQuote, TmuxRepl, waitUntil } from "./support/tmux_repl.ts";
import { processesMatching } from "./support/process_state.ts";
import { tempWorktree } from "./support/worktree.ts";

/** The screen's lines without the blank ones tmux pads it with. */
function screenLines(screen: string): string[] {
  return screen.split("\n").map((line) => line.trimEnd()).filter((line) => line !== "");
}

Deno.test("repl keeps a streaming answer intact when the terminal is resized", async () => {
  const answer = [
    "Alpha line of the answer, streamed before the resize.",
    "Bravo line of the answer, also on screen already.",
    "Charlie line ends the part that arrived ",
  ].join("\n");
  // The role chunk and the whole text arrive, then the stream stays open: the resize lands
  // while the answer is streaming, whatever the speed of the machine.
  await using env = await setup([
    { text: answer, chunkSize: 1000, fault: "hang", faultAfter: 2 },
    { text: "Second answer after the resize." },
  ]);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("tell me three things");
  await repl.waitFor("Charlie line ends the part that arrived");
  for (const width of [70, 100]) {
    await repl.tmux("resize-window", "-t", "0", "-x", String(width));
    await waitUntil(
      async () =>
        (await repl.tmux("display-message", "-p", "-t", "0", "#{pane_width}")).trim() ===
          String(width),
      `the pane to be ${width} columns wide`,
    );
  }
  await repl.keys("C-c");
  await repl.waitFor("(cancelled)");
  const screen = await repl.waitForPrompt();
  const lines = screenLines(screen);
  const start = lines.indexOf("> tell me three things");
  assert.deepEqual(lines.slice(start, start + 5), [
    "> tell me three things",
    "Alpha line of the answer, streamed before the resize.",
    "Bravo line of the answer, also on screen already.",
    "Charlie line ends the part that arrived… (interrupted)",
    "(cancelled)",
  ], screen);
  // No prompt was drawn while the answer streamed: the only prompts are the person's.
  assert.deepEqual(lines.filter((line) => line.startsWith(">")), ["> tell me three things", ">"]);
  // The next answer streams at the new width as usual.
  await repl.enter("and then?");
  await repl.waitFor("Second answer after the resize.");
  await repl.waitForPrompt();
});

/**
 * An MCP server configured to fail at start-up when the test says so: it waits for a gate file,
 * then exits. `release` lets it fail and resolves once it has exited. replio's connect timeout
 * is set longer than any test: at the default 10 s, a busy machine could reach it first, and the
 * failure would come before the test is ready for it.
 */
async function lateFailingServer(
  wt: { path: string; write(path: string, text: string): Promise<void> },
) {
  const gate = join(wt.path, `gate-${crypto.randomUUID()}`);
  await wt.write(
    ".test-xdg/replio/config.yaml",
    [
      "mcp_startup_wait: 0",
      "mcp_connect_timeout: 600",
      "mcp_servers:",
      // The interval only sets how soon the server sees the gate, not whether.
      `  late: {command: sh, args: [-c, "until [ -e ${gate} ]; do sleep 0.05; done; exit 3"]}`,
      "",
    ].join("\n"),
  );
  return {
    async release() {
      await Deno.writeTextFile(gate, "");
      await waitUntil(async () => (await processesMatching(gate)) === 0, "the MCP server to exit");
    },
  };
}

Deno.test("repl shows an MCP server's late start-up failure above the prompt and redraws it", async () => {
  await using env = await setup([]);
  const server = await lateFailingServer(env.wt);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.type("half typed");
  await repl.waitFor(/\n> half typed\s*$/, "the typed text at the prompt");
  await server.release();
  const screen = await repl.waitFor(/MCP server "late"[\s\S]*\n> half typed\s*$/, "the warning");
  const lines = screenLines(screen);
  const warning = lines.findIndex((line) => line.includes('MCP server "late"'));
  assert.ok(lines[warning]!.startsWith("warning: Cannot start"), `a line of its own:\n${screen}`);
  assert.equal(lines.filter((line) => line.startsWith(">")).length, 1, screen);
  // Typing goes on where it stopped, on the redrawn line.
  await repl.type(" and more");
  await repl.waitFor(/\n> half typed and more\s*$/, "the typed text continued");
});

Deno.test("repl holds a warning that arrives while an answer streams until the turn ends", async () => {
  await using env = await setup([
    {
      text: "Streaming line one.\nStreaming line two ",
      chunkSize: 1000,
      fault: "hang",
      faultAfter: 2,
    },
  ]);
  const server = await lateFailingServer(env.wt);
  await using repl = await TmuxRepl.start(env.wt.path, env.args);
  await repl.enter("stream please");
  await repl.waitFor("Streaming line two");
  await server.release();
  await repl.keys("C-c");
  // Held to the turn's end, or (had it come later) above the prompt: the same screen either way.
  const screen = await repl.waitFor(
    /\(cancelled\)[\s\S]*MCP server "late"[\s\S]*\n>\s*$/,
    "the warning",
  );
  const lines = screenLines(screen);
  const start = lines.indexOf("> stream please");
  assert.deepEqual(lines.slice(start, start + 4), [
    "> stream please",
    "Streaming line one.",
    "Streaming line two… (interrupted)",
    "(cancelled)",
  ], screen);
  const warning = lines.findIndex((line) =>
    line.startsWith('warning: Cannot start MCP server "late"')
  );
  assert.ok(warning > start + 3, `after the turn:\n${screen}`);
  assert.equal(lines.at(-1), ">", screen);
});

/**
 * Downloading every npm package of deno.json into an empty Deno cache: well under this on any
 * machine that reaches the registry; only a hang reaches it. The test stays in CI: it waits on
 * the network, not the CPU (26 s with four busy loops on two cores, 40-85 s measured elsewhere),
 * CI reaches the registry anyway (`deno task check` fetches the same packages), and it is the
 * only check of what a new user's first `deno task start` shows.
 */
const DOWNLOAD_DEADLINE_MS = 10 * 60_000;

Deno.test("deno task start on an empty Deno cache: Deno draws nothing over replio, the trust question is whole", async () => {
  // The one test that downloads: every npm package, from the registry, as a new user's first
  // `npx -y deno@2.9.6 task start` does. Deno's progress line, drawn while replio fetched the
  // packages it loads lazily, was drawn over the question and then erased with its last lines.
  await using wt = await tempWorktree({
    ".replio/config.yaml": "tool_permission:\n  bash: allow\n",
  });
  const denoDir = await Deno.makeTempDir({ prefix: "replio_deno_dir_" });
  try {
    const config = new URL("../deno.json", import.meta.url).pathname;
    const task = [Deno.execPath(), "task", "--config", config, "start", "--path", wt.path];
    // `script` keeps every byte written to the terminal, from the first: the screen at the end
    // shows only what was not erased.
    const log = join(wt.path, "terminal.log");
    const command = [...task, "--base-url", "http://127.0.0.1:9/v1"].map(shellQuote).join(" ");
    await using repl = await TmuxRepl.start(wt.path, [], {
      command: ["script", "-qfec", command, log],
      env: { DENO_DIR: denoDir },
      waitForPrompt: false,
    });
    // The question's first line, which the erasure left: the answer is read either way.
    const opening = `${wt.path} is not a trusted folder.`;
    await waitLong(
      async () => (await repl.screen()).includes(opening),
      "the npm packages to download and the trust question to appear",
      { ms: DOWNLOAD_DEADLINE_MS },
    );
    await repl.enter("n");
    await repl.waitFor("Continuing without the folder's settings");
    const screen = await repl.waitForPrompt();
    const lines = screenLines(screen);
    const first = lines.indexOf(opening);
    assert.deepEqual(lines.slice(first, first + 6), [
      opening,
      "Its own replio settings (.replio/) were not loaded. Trusted, they would enable:",
      '  - permissions: tool_permission.bash: "allow"',
      "Only trust folders whose contents you trust as your own.",
      "Trust this folder? [y]es always / [o]nce / [N]o, continue without n",
      `Continuing without the folder's settings; run "replio trust" to load them`,
    ], screen);
    // The task runner shows its own download; once replio runs, Deno draws nothing at all.
    const written = await Deno.readTextFile(log);
    const replio = written.slice(written.indexOf("Task"));
    assert.ok(written.includes("Task"), written);
    assert.doesNotMatch(replio, /Download|Initialize/, replio);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
  }
});
