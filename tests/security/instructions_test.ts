/**
 * Instruction files (issue 11): AGENTS.md and `project_instructions` come with the repository,
 * so a symlink from them to a file outside the worktree must not pour that file into the
 * system prompt (and so to the model provider). The marker is a secret outside the worktree;
 * the control shows an in-worktree file still loads, through a link too.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readProjectInstructions } from "../../src/engine/mod.ts";
import type { TurnEvent } from "../../src/ui/events.ts";
import { startTestAgent } from "../support/agent_harness.ts";
import { startMockModel } from "../support/mock_model.ts";
import { configWith, RecordingSink, tempWorktree } from "../support/worktree.ts";

const SECRET = "MARKER-SECRET-4b1d";

/** A worktree and a secret file outside it. */
async function secretSetup(files: Record<string, string> = {}) {
  const wt = await tempWorktree(files);
  const outside = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_outside_" }));
  const secret = join(outside, "secret.txt");
  await Deno.writeTextFile(secret, `${SECRET}\n`);
  return {
    wt,
    secret,
    async [Symbol.asyncDispose]() {
      await wt[Symbol.asyncDispose]();
      await Deno.remove(outside, { recursive: true });
    },
  };
}

function notes(events: readonly TurnEvent[]): string[] {
  return events.flatMap((e) => e.type === "note" ? [e.message] : []);
}

Deno.test("control: an AGENTS.md linked to a file inside the worktree is loaded", async () => {
  await using s = await secretSetup({ "docs/agents.md": "Use tabs." });
  await Deno.symlink("docs/agents.md", join(s.wt.path, "AGENTS.md"));
  const seen: string[] = [];
  const text = await readProjectInstructions(
    await configWith({}, s.wt.path),
    s.wt.path,
    (m) => seen.push(m),
  );
  assert.equal(text, "Project instructions from AGENTS.md:\nUse tabs.");
  assert.deepEqual(seen, []);
  // And the secret is readable: the attack below fails because of the check, not access.
  assert.equal(await Deno.readTextFile(s.secret), `${SECRET}\n`);
});

Deno.test("an AGENTS.md symlinked outside the worktree never reaches the model, with a note", async () => {
  await using s = await secretSetup();
  await Deno.symlink(s.secret, join(s.wt.path, "AGENTS.md"));
  await using mock = startMockModel([{ text: "ok" }, { text: "ok again" }]);
  const sink = new RecordingSink();
  using t = await startTestAgent(s.wt.path, mock, { sink });
  await t.agent.runTurn("hi", new AbortController().signal);
  await t.agent.runTurn("again", new AbortController().signal);
  for (const request of mock.requests) {
    assert.equal(JSON.stringify(request.messages).includes(SECRET), false);
  }
  assert.deepEqual(notes(sink.events), [
    `Skipped the project instructions AGENTS.md: they resolve to ${s.secret}, outside the ` +
    `worktree: copy the file into the worktree to use it`,
  ]);
});

Deno.test("project_instructions pointing out of the worktree is skipped", async () => {
  await using s = await secretSetup();
  const relative = join("..", s.secret.split("/").slice(-2).join("/"));
  const seen: string[] = [];
  const config = await configWith({ project_instructions: relative }, s.wt.path);
  assert.equal(await readProjectInstructions(config, s.wt.path, (m) => seen.push(m)), "");
  assert.equal(seen.length, 1);
  assert.match(seen[0]!, /outside the worktree/);
});

Deno.test("an instructions file that is not a regular file or is past the cap says so", async () => {
  await using s = await secretSetup({ "big.md": "x".repeat(50) });
  await Deno.mkdir(join(s.wt.path, "AGENTS.md"));
  const seen: string[] = [];
  const config = await configWith({}, s.wt.path);
  assert.equal(await readProjectInstructions(config, s.wt.path, (m) => seen.push(m)), "");
  const capped = await configWith({
    project_instructions: "big.md",
    project_instructions_max_chars: 10,
  }, s.wt.path);
  assert.equal(
    await readProjectInstructions(capped, s.wt.path, (m) => seen.push(m)),
    "Project instructions from big.md:\nxxxxxxxxxx\n... (big.md truncated at 10 chars)",
  );
  assert.deepEqual(seen, [
    "Skipped the project instructions AGENTS.md: it is not a regular file: make it a text file",
    "The project instructions big.md are longer than project_instructions_max_chars (10): " +
    "only the start went into the prompt: shorten the file or raise the cap",
  ]);
});
