import assert from "node:assert/strict";
import { InputFilter } from "./input_filter.ts";
import { PasteStore } from "./paste_store.ts";

function filter() {
  const forwarded: string[] = [];
  const pastes = new PasteStore();
  return { input: new InputFilter((text) => forwarded.push(text), pastes), forwarded, pastes };
}

Deno.test("InputFilter forwards typed keys unchanged", () => {
  const { input, forwarded } = filter();
  input.write("ab");
  input.write("\x1b[A");
  input.write("\r");
  assert.deepEqual(forwarded, ["ab", "\x1b[A", "\r"]);
});

Deno.test("InputFilter turns a bracketed multi-line paste into one placeholder", () => {
  const { input, forwarded, pastes } = filter();
  input.write("see \x1b[200~line 1\r\nline 2\nline 3\n\x1b[201~ now\r");
  assert.deepEqual(forwarded, ["see ", "[paste #1: 3 lines]", " now\r"]);
  assert.equal(pastes.expand(forwarded.join("")), "see line 1\nline 2\nline 3 now\r");
});

Deno.test("InputFilter reassembles paste markers split across chunks", () => {
  const { input, forwarded } = filter();
  for (const chunk of ["x\x1b[2", "00~a\nb\x1b", "[201", "~"]) input.write(chunk);
  assert.deepEqual(forwarded, ["x", "[paste #1: 2 lines]"]);
});

Deno.test("InputFilter types a one-line paste as text", () => {
  const { input, forwarded } = filter();
  input.write("\x1b[200~just words\x1b[201~");
  assert.deepEqual(forwarded, ["just words"]);
});

Deno.test("InputFilter treats several lines in one unmarked chunk as a paste", () => {
  const { input, forwarded } = filter();
  input.write("one\ntwo\n");
  assert.deepEqual(forwarded, ["[paste #1: 2 lines]\n"]);
});

Deno.test("InputFilter holds keys during a turn, interrupts on Ctrl-C and types them after", () => {
  const { input, forwarded } = filter();
  let interrupts = 0;
  input.hold(() => interrupts++);
  input.write("ty");
  input.write("\x03");
  input.write("ped");
  assert.equal(interrupts, 1);
  assert.deepEqual(forwarded, []);
  input.release();
  assert.deepEqual(forwarded, ["typed"]);
  input.write("\x03");
  assert.deepEqual(forwarded, ["typed", "\x03"]);
});

Deno.test("InputFilter interrupts on a lone Esc during a turn but holds arrow keys", () => {
  const { input, forwarded } = filter();
  let interrupts = 0;
  input.hold(() => interrupts++);
  input.write("\x1b[A");
  input.write("\x1b");
  assert.equal(interrupts, 1);
  input.release();
  assert.deepEqual(forwarded, ["\x1b[A"]);
  // At the prompt a lone Esc is a key for the editor, not held back as a paste marker's start.
  input.write("\x1b");
  assert.deepEqual(forwarded, ["\x1b[A", "\x1b"]);
});

Deno.test("InputFilter passes Enter then Ctrl-C in one chunk as two keys, not a paste", () => {
  const { input, forwarded, pastes } = filter();
  input.write("/tool list_dir {}");
  input.write("\r\x03");
  input.write("\r\x04");
  assert.deepEqual(forwarded, ["/tool list_dir {}", "\r\x03", "\r\x04"]);
  assert.equal(pastes.expand("[paste #1: 2 lines]"), "[paste #1: 2 lines]", "no paste was stored");
  // Control: two lines of text in one chunk are still a paste.
  input.write("a\rb\r");
  assert.deepEqual(forwarded.at(-1), "[paste #1: 2 lines]\r");
});
