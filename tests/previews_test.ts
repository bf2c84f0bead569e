import assert from "node:assert/strict";
import { createRegistry } from "../src/plugins/load.ts";
import {
  createToolContext,
  type HeadlessAnswer,
  invokeTool,
  ToolPolicy,
} from "../src/tools/mod.ts";
import type { ConfirmAnswer, ConfirmRequest, TurnEvent } from "../src/ui/events.ts";
import { CollectingSink } from "../src/ui/collecting_sink.ts";
import { startTestAgent } from "./support/agent_harness.ts";
import { startMockModel } from "./support/mock_model.ts";
import { configWith, tempWorktree } from "./support/worktree.ts";

const registry = createRegistry();

/** A sink that shows no previews (json output) and says yes to whatever it is asked. */
class QuietSink extends CollectingSink {
  readonly asked: ConfirmRequest[] = [];
  override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.asked.push(request);
    return Promise.resolve("yes");
  }
}

async function overwrite(sink: CollectingSink, headless: HeadlessAnswer | undefined) {
  await using wt = await tempWorktree({ "a.txt": "one\n" });
  // Edits ask, so that a person (or the parking) is involved unless the run says --yes.
  const config = await configWith({ "tool_permission.edit": "ask" });
  const policy = new ToolPolicy({ config, worktree: wt.path, ...(headless ? { headless } : {}) });
  const outcome = await invokeTool({
    registry,
    policy,
    ctx: createToolContext({ config, worktree: wt.path, signal: new AbortController().signal }),
    sink,
  }, { id: "c", name: "file_write", arguments: { path: "a.txt", content: "two\n" } });
  const call = sink.events.find((e): e is Extract<TurnEvent, { type: "tool_call" }> =>
    e.type === "tool_call"
  )!;
  return { outcome, shown: call.activity.status, written: await wt.read("a.txt") };
}

const DIFF = /-one\n\+two/;

Deno.test("no diff preview is made for a sink that shows none; a renderer's sink gets one", async () => {
  const quiet = await overwrite(new QuietSink(), "yes");
  assert.equal(quiet.shown, undefined);
  assert.equal(quiet.written, "two\n");
  const shown = new (class extends QuietSink {
    override readonly showsPreviews = true;
  })();
  assert.match((await overwrite(shown, "yes")).shown ?? "", DIFF);
});

Deno.test("a confirm prompt and a parked call get the preview even from a sink that shows none", async () => {
  const sink = new QuietSink();
  const asked = await overwrite(sink, undefined);
  assert.equal(asked.shown, undefined);
  assert.match(sink.asked[0]?.activity.status ?? "", DIFF);
  assert.equal(asked.written, "two\n");

  const parked = await overwrite(new QuietSink(), "park");
  assert.match(parked.outcome.parked?.activity.status ?? "", DIFF);
  assert.equal(parked.written, "one\n");
});

Deno.test("through the engine too: a turn for a sink that shows no previews makes none; one that shows them gets the diff", async () => {
  for (const showsPreviews of [false, true]) {
    await using wt = await tempWorktree({ "a.txt": "one\n" });
    await using mock = startMockModel([
      { toolCalls: [{ name: "file_write", arguments: { path: "a.txt", content: "two\n" } }] },
      { text: "done" },
    ]);
    const sink = new (class extends QuietSink {
      override readonly showsPreviews = showsPreviews;
    })();
    using test = await startTestAgent(wt.path, mock, { sink, headless: "yes" });
    const result = await test.agent.runTurn("write", new AbortController().signal);
    assert.equal(result.status, "ok");
    assert.equal(await wt.read("a.txt"), "two\n");
    const call = sink.events.find((e): e is Extract<TurnEvent, { type: "tool_call" }> =>
      e.type === "tool_call"
    )!;
    if (showsPreviews) assert.match(call.activity.status ?? "", DIFF);
    else assert.equal(call.activity.status, undefined, "a preview was made nobody sees");
  }
});
