import assert from "node:assert/strict";
import { InputAssembler } from "./input_assembler.ts";

function feedAll(lines: string[]): { results: unknown[]; continuing: boolean } {
  const input = new InputAssembler();
  const results = lines.map((line) => input.feed(line));
  return { results, continuing: input.continuing };
}

Deno.test("InputAssembler passes a plain line straight through", () => {
  assert.deepEqual(feedAll(["hello"]).results, [{ done: true, text: "hello" }]);
});

Deno.test("InputAssembler joins backslash continuations with newlines", () => {
  assert.deepEqual(feedAll(["a\\", "b\\", "c"]).results, [
    { done: false },
    { done: false },
    { done: true, text: "a\nb\nc" },
  ]);
});

Deno.test("InputAssembler keeps a doubled backslash as text", () => {
  assert.deepEqual(feedAll(["C:\\\\"]).results, [{ done: true, text: "C:\\\\" }]);
});

Deno.test("InputAssembler collects a triple-quote block verbatim", () => {
  const { results, continuing } = feedAll(['"""', "  indented", "", "end \\", '"""']);
  assert.deepEqual(results.at(-1), { done: true, text: "  indented\n\nend \\" });
  assert.equal(continuing, false);
});

Deno.test("InputAssembler takes text on the opening and closing quote lines", () => {
  assert.deepEqual(feedAll(['"""first', 'last"""']).results.at(-1), {
    done: true,
    text: "first\nlast",
  });
  assert.deepEqual(feedAll(['"""one line"""']).results, [{ done: true, text: "one line" }]);
});

Deno.test("InputAssembler.reset drops a half-typed message", () => {
  const input = new InputAssembler();
  input.feed('"""');
  input.feed("lost");
  assert.equal(input.continuing, true);
  input.reset();
  assert.equal(input.continuing, false);
  assert.deepEqual(input.feed("fresh"), { done: true, text: "fresh" });
});
