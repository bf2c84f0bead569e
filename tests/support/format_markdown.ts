/**
 * Markdown as `deno fmt` leaves it, for tests that compare generated pages with the committed
 * ones (the `docs` task formats what it writes).
 * @module
 */
import assert from "node:assert/strict";

/** `text` through `deno fmt --ext=md -` with the repository's settings. */
export async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: new URL("../..", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}
