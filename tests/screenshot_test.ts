/**
 * The README's picture (issue #25): `deno task screenshot` runs a scripted REPL session in tmux and
 * draws the captured screen, colours included, as SVG. CI runs the task here and checks that the
 * picture is well-formed SVG showing the session; it does not compare pixels. The ANSI-to-SVG
 * drawing is checked on small captures with known colours.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { ansiToSvg } from "../scripts/ansi_to_svg.ts";
import { SCREENSHOT_PROMPTS } from "../scripts/screenshot.ts";
import { withDeadline } from "./support/deadline.ts";

const ROOT = new URL("..", import.meta.url).pathname;

/**
 * Why `svg` is not well-formed XML with an `<svg>` root, or null: tags nest and close, attributes
 * are quoted, and text holds only XML's own entities.
 */
function xmlProblem(svg: string): string | null {
  const open: string[] = [];
  for (const [token] of svg.matchAll(/<[^>]*>|[^<]+/g)) {
    if (!token.startsWith("<")) {
      const entity = /&(?!(amp|lt|gt|quot|apos|#\d+|#x[\da-f]+);)/i.exec(token);
      if (entity) return `a bare & in text: ${token.slice(entity.index, entity.index + 20)}`;
      if (!open.length && token.trim()) return `text outside the root: ${token.slice(0, 20)}`;
      continue;
    }
    const tag = /^<(\/?)([\w:-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>$/.exec(token);
    if (!tag) return `a malformed tag: ${token.slice(0, 60)}`;
    const [, closing, name, , selfClosing] = tag;
    if (closing) {
      if (open.pop() !== name) return `</${name}> closes nothing open`;
    } else if (!selfClosing) {
      if (!open.length && name !== "svg") return `the root is <${name}>, not <svg>`;
      open.push(name!);
    }
  }
  return open.length ? `<${open.at(-1)}> is never closed` : null;
}

/** The text the picture shows, tags removed and entities read back. */
function shownText(svg: string): string {
  return svg.replace(/<\/text>/g, "\n").replace(/<[^>]+>/g, "")
    .replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"')
    .replaceAll("&amp;", "&");
}

Deno.test("ansiToSvg draws SGR colours, bold, faint and inverse runs at their columns", () => {
  const svg = ansiToSvg(
    "\x1b[1mreplio\x1b[0m \x1b[36m>\x1b[39m hi & <bye>\n" +
      "\x1b[2mfaint\x1b[22m \x1b[38;5;196mred\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m " +
      "\x1b[7minv\x1b[27m\x1b[K\n\n",
    { columns: 30, title: "t" },
  );
  assert.equal(xmlProblem(svg), null);
  assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="284" height="99" /);
  // Each run sits at its column (8.4 px a cell after 16 px of padding); the trailing blank line
  // and the erase-line sequence leave nothing behind.
  assert.deepEqual(svg.split("\n").filter((line) => /^<(text y|rect x)=/.test(line)), [
    '<text y="58.0"><tspan x="16.0" font-weight="bold">replio</tspan>' +
    '<tspan x="74.8" fill="#6fd3e0">&gt;</tspan><tspan x="83.2"> hi &amp; &lt;bye&gt;</tspan></text>',
    // Inverse: a box in the text colour behind text in the background colour. Faint text is
    // mixed into the background; 196 of 256 colours is pure red; 38;2 is the colour given.
    '<rect x="133.6" y="63.6" width="25.2" height="19.6" fill="#d4d4d8"/>' +
    '<text y="77.6"><tspan x="16.0" fill="#82828c">faint</tspan>' +
    '<tspan x="66.4" fill="#ff0000">red</tspan><tspan x="100.0" fill="#010203">rgb</tspan>' +
    '<tspan x="133.6" fill="#1e1e2e">inv</tspan></text>',
  ]);
});

Deno.test("xmlProblem finds what would break the picture", () => {
  assert.equal(xmlProblem('<svg a="1"><g><text>x &amp; y</text></g></svg>'), null);
  assert.equal(xmlProblem("<svg><text>a & b</text></svg>"), "a bare & in text: & b");
  assert.equal(xmlProblem("<svg><text>a</svg>"), "</svg> closes nothing open");
  assert.equal(xmlProblem("<svg><text a=1>a</text></svg>"), "a malformed tag: <text a=1>");
  assert.equal(xmlProblem("<html></html>"), "the root is <html>, not <svg>");
});

Deno.test("deno task screenshot draws the REPL session as well-formed SVG", async () => {
  const dir = await Deno.makeTempDir({ prefix: "replio_shot_" });
  await using _cleanup = { [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
  const out = join(dir, "shot.svg");
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--config", join(ROOT, "deno.json"), "screenshot", "--out", out],
    cwd: dir,
    env: { NO_COLOR: "1", RUST_BACKTRACE: "0" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const { code, stdout, stderr } = await withDeadline(child.output(), "deno task screenshot", {
    onLate: () => child.kill(),
  });
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.equal(code, 0, decode(stderr));
  assert.equal(decode(stdout), `screenshot: wrote ${out}\n`);
  const svg = await Deno.readTextFile(out);
  assertShowsSession(svg);
});

Deno.test("the README opens with docs/screenshot.svg, a well-formed picture of the session", async () => {
  const readme = await Deno.readTextFile(join(ROOT, "README.md"));
  const firstImage = /!\[[^\]]+\]\(([^)]+)\)/.exec(readme.split("\n").slice(0, 4).join("\n"));
  assert.equal(firstImage?.[1], "docs/screenshot.svg");
  assertShowsSession(await Deno.readTextFile(join(ROOT, "docs/screenshot.svg")));
});

/** The picture is SVG and shows the scripted session, in colour, without the temporary path. */
function assertShowsSession(svg: string): void {
  assert.equal(xmlProblem(svg), null);
  const text = shownText(svg);
  for (const prompt of SCREENSHOT_PROMPTS) assert.ok(text.includes(`> ${prompt}`), prompt);
  assert.match(text, /replio \S+ · model qwen3-coder/);
  assert.match(text, /worktree ~\/src\/greeter/);
  assert.doesNotMatch(text, /replio_wt_/);
  // The prompt sign is drawn in the REPL's cyan: the capture kept its colours.
  assert.ok(svg.includes('fill="#6fd3e0">&gt;</tspan>'), "a coloured prompt");
}
