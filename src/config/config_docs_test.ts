import assert from "node:assert/strict";
import { CONFIG_DOCS_PATH, renderConfigDocs } from "./config_docs.ts";
import { CONFIG_KEYS } from "./defaults.ts";
import { formatMarkdown } from "../../tests/support/format_markdown.ts";

Deno.test("renderConfigDocs matches docs/config.md", async () => {
  const committed = await Deno.readTextFile(new URL(`../../${CONFIG_DOCS_PATH}`, import.meta.url));
  assert.ok(
    committed === await formatMarkdown(renderConfigDocs()),
    `${CONFIG_DOCS_PATH} is stale: run \`deno task docs\` and commit the result`,
  );
});

Deno.test("renderConfigDocs lists every key of the table once", () => {
  const page = renderConfigDocs();
  for (const name of Object.keys(CONFIG_KEYS)) {
    assert.equal(page.split(`| \`${name}\` |`).length, 2, `${name} is listed once`);
  }
});
