import assert from "node:assert/strict";
import { highlightCode } from "./code_highlight.ts";
import { MarkdownStream } from "./markdown.ts";
import { displayWidth, wrapText } from "./text_width.ts";
import { createStyles } from "./styles.ts";

const plain = createStyles(false);
const color = createStyles(true);

/** Feeds `text` in pieces of `size` characters, as a model stream would. */
function render(text: string, options: { width?: number; size?: number; colored?: boolean } = {}) {
  const md = new MarkdownStream({
    styles: options.colored ? color : plain,
    width: () => options.width ?? 80,
  });
  const size = options.size ?? 3;
  let out = "";
  for (let i = 0; i < text.length; i += size) out += md.push(text.slice(i, i + size));
  return out + md.end();
}

Deno.test("MarkdownStream keeps the source text when colour is off", () => {
  const source =
    "# Title\n\nSome **bold** and `code` here.\n\n- one\n- two\n\n```ts\nconst a = 1;\n```\n";
  assert.equal(render(source), source);
});

Deno.test("MarkdownStream gives the same output whatever the chunk size", () => {
  const source = "## Plan\n\n1. Read **the** file\n2. Edit `x_y`\n> quoted text\n\n---\nend";
  const whole = render(source, { size: source.length, colored: true });
  for (const size of [1, 2, 5, 7]) {
    assert.equal(render(source, { size, colored: true }), whole, `size ${size}`);
  }
});

Deno.test("MarkdownStream wraps at word boundaries with a hanging indent for list items", () => {
  const out = render("- alpha beta gamma delta epsilon zeta eta theta\n", { width: 20 });
  assert.equal(out, "- alpha beta gamma\n  delta epsilon zeta\n  eta theta\n");
  for (const line of out.split("\n")) assert.ok(displayWidth(line) <= 20, line);
});

Deno.test("MarkdownStream never writes half a word while it is still arriving", () => {
  const md = new MarkdownStream({ styles: plain, width: () => 80 });
  assert.equal(md.push("Hello wor"), "Hello");
  assert.equal(md.push("ld and"), " world");
  assert.equal(md.end(), " and\n");
});

Deno.test("MarkdownStream cuts a word longer than the line", () => {
  assert.equal(
    render("x " + "a".repeat(45), { width: 20 }),
    "x\n" + "a".repeat(20) + "\n" + "a".repeat(20) + "\n" + "a".repeat(5) + "\n",
  );
});

Deno.test("MarkdownStream styles emphasis and strips markers when colour is on", () => {
  assert.equal(
    render("a **b c** `d e` *f*\n", { colored: true }),
    `a ${color.bold("b")} ${color.bold("c")} ${color.cyan("`d")} ${color.cyan("e`")} ${
      color.italic("f")
    }\n`.replaceAll("`", ""),
  );
});

Deno.test("MarkdownStream leaves snake_case and arithmetic alone", () => {
  assert.equal(
    render("use snake_case_name and 2*3*4\n", { colored: true }),
    "use snake_case_name and 2*3*4\n",
  );
});

Deno.test("MarkdownStream does not let a stray marker style the next line", () => {
  assert.equal(
    render("*args here\nnext\n", { colored: true }),
    `${color.italic("args")} ${color.italic("here")}\nnext\n`,
  );
});

Deno.test("MarkdownStream highlights code blocks and does not wrap them", () => {
  const out = render("```py\nx = 'a b c d e f g h i j k l m n o p' # note\n```\n", {
    width: 20,
    colored: true,
  });
  assert.equal(
    out,
    `${color.dim("```py")}\nx = ${color.green("'a b c d e f g h i j k l m n o p'")} ${
      color.dim("# note")
    }\n${color.dim("```")}\n`,
  );
});

Deno.test("MarkdownStream draws a rule and bars quotes", () => {
  assert.equal(
    render("---\n> a b c\n", { colored: false, width: 30 }),
    "─".repeat(30) + "\n│ a b c\n",
  );
});

Deno.test("MarkdownStream.end finishes a partial line and the stream goes on", () => {
  const md = new MarkdownStream({ styles: plain, width: () => 80 });
  assert.equal(md.push("partial"), "");
  assert.equal(md.end(), "partial\n");
  assert.ok(md.atLineStart);
  assert.equal(md.push("- next\n"), "- next\n");
});

Deno.test("highlightCode colours keywords, strings, numbers and comments", () => {
  assert.equal(
    highlightCode('const s = "x"; // 1', "ts", color),
    `${color.magenta("const")} s = ${color.green('"x"')}; ${color.dim("// 1")}`,
  );
  assert.equal(
    highlightCode("return 42", "", color),
    `${color.magenta("return")} ${color.yellow("42")}`,
  );
});

Deno.test("wrapText wraps words and indents continuation lines", () => {
  assert.deepEqual(wrapText("$ Run npm test [cwd=/a/b, timeout=600]", 20, "  "), [
    "$ Run npm test",
    "  [cwd=/a/b,",
    "  timeout=600]",
  ]);
  assert.deepEqual(wrapText("short", 80), ["short"]);
  assert.deepEqual(wrapText("no terminal: never wrapped", 0), ["no terminal: never wrapped"]);
});

Deno.test("displayWidth counts wide characters twice", () => {
  assert.equal(displayWidth("a日b"), 4);
  assert.equal(displayWidth("é"), 1);
});
