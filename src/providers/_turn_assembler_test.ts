import assert from "node:assert/strict";
import { TurnAssembler } from "./_turn_assembler.ts";
import type { ProviderEvent } from "./types.ts";

function assemble(chunks: Record<string, unknown>[]): ProviderEvent[] {
  let ids = 0;
  const turn = new TurnAssembler(() => `call_${++ids}`);
  return [...chunks.flatMap((chunk) => turn.add(chunk)), ...turn.finish()];
}

const delta = (value: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: value, finish_reason: finish }],
});

Deno.test("TurnAssembler separates calls that all reuse index 0 with new ids", () => {
  const events = assemble([
    delta({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: '{"x":1}' } }] }),
    delta({ tool_calls: [{ index: 0, id: "b", function: { name: "g", arguments: "{}" } }] }),
    delta({}, "tool_calls"),
  ]);
  assert.deepEqual(events, [
    {
      type: "tool_calls",
      calls: [
        { id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } },
        { id: "b", type: "function", function: { name: "g", arguments: "{}" } },
      ],
    },
    { type: "done", reason: "tool_calls" },
  ]);
});

Deno.test("TurnAssembler accepts arguments sent as an object and interleaved indexes", () => {
  const events = assemble([
    delta({ tool_calls: [{ index: 1, id: "b", function: { name: "g", arguments: '{"y"' } }] }),
    delta({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: { x: 1 } } }] }),
    delta({ tool_calls: [{ index: 1, function: { arguments: ":2}" } }] }),
  ]);
  assert.deepEqual(events[0], {
    type: "tool_calls",
    calls: [
      { id: "b", type: "function", function: { name: "g", arguments: '{"y":2}' } },
      { id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } },
    ],
  });
});

Deno.test("TurnAssembler joins a surrogate pair split across deltas", () => {
  const events = assemble([delta({ content: "a\uD83D" }), delta({ content: "\uDE00b" })]);
  assert.deepEqual(events, [
    { type: "text", delta: "a" },
    { type: "text", delta: "😀b" },
    { type: "done", reason: "stop" },
  ]);
});

Deno.test("TurnAssembler reports length even when calls came, and the last usage", () => {
  const events = assemble([
    delta({ tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: '{"x":' } }] }),
    { choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } },
    { choices: [{ index: 0, delta: {}, finish_reason: "length" }], usage: { prompt_tokens: 5 } },
  ]);
  assert.deepEqual(events.slice(1), [
    { type: "usage", usage: { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 } },
    { type: "done", reason: "length" },
  ]);
});
