import assert from "node:assert/strict";
import { CONFIG_DOCS_PATH, renderConfigDocs } from "./config_docs.ts";
import { CONFIG_KEYS } from "./defaults.ts";

/** The page as `deno task docs` leaves it: rendered, then through `deno fmt`. */
async function formattedDocs(): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext=md", "-"],
    cwd: new URL("../..", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(renderConfigDocs()));
  await writer.close();
  const { code, stdout, stderr } = await child.output();
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}

Deno.test("renderConfigDocs matches docs/config.md", async () => {
  const committed = await Deno.readTextFile(new URL(`../../${CONFIG_DOCS_PATH}`, import.meta.url));
  assert.ok(
    committed === await formattedDocs(),
    `${CONFIG_DOCS_PATH} is stale: run \`deno task docs\` and commit the result`,
  );
});

Deno.test("renderConfigDocs lists every key of the table once", () => {
  const page = renderConfigDocs();
  for (const name of Object.keys(CONFIG_KEYS)) {
    assert.equal(page.split(`| \`${name}\` |`).length, 2, `${name} is listed once`);
  }
});
