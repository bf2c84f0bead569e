/**
 * Generates docs/config.md from the defaults table, so the page cannot drift from the code.
 * Run `deno task docs` after changing src/config/defaults.ts; a test fails while it is stale.
 * @module
 */
import { CONFIG_KEYS, type KeySpec } from "./defaults.ts";
import { describeSchema } from "./describe_schema.ts";

/** Where the generated page lives, relative to the repository root. */
export const CONFIG_DOCS_PATH = "docs/config.md";

const INTRO = `# Configuration

<!-- Generated from src/config/defaults.ts by \`deno task docs\`: edit the table there. -->

replio reads YAML from two files and merges them with built-in defaults and command-line
flags, later winning: **defaults < global < local < flags**.

- global: \`$XDG_CONFIG_HOME/replio/config.yaml\` (default \`~/.config/replio/config.yaml\`)
- local: \`<worktree>/.replio/config.yaml\` (the worktree is the launch directory or \`--path\`)

Dotted keys may be written nested or flat: \`tool_permission: {bash: allow}\` and
\`tool_permission.bash: allow\` are the same setting. Mappings marked *per entry* (\`modes\`,
\`agents\`) merge across files entry by entry; lists and scalars replace. An unknown key, a
value of the wrong type or invalid YAML stops replio with exit code 2, naming the file, the key
and what was expected.

\`\`\`sh
replio config get                          # every key with its effective value
replio config get tool_permission.bash --show-origin
replio config set tool_permission.bash allow           # local .replio/config.yaml
replio config set tools.deny '[web_fetch, web_search]' --global
replio config unset max_rounds
\`\`\`

The local file, \`.replio/agents/\` and \`.replio/plugins/\` load only in a trusted folder (one
listed in \`trusted_folders\` of the global file, or with \`--trust\`); elsewhere only
\`tools.deny\` and stricter \`tool_permission\` actions apply from them: see security.md,
"Folder trust", and \`replio trust\`.

Values given to \`config set\` are read as YAML (\`true\`, \`3\`, \`[a, b]\`, \`{"x": 1}\`); a
string key keeps the text as typed. \`set\` keeps the file's comments and other keys, and
checks the whole file before writing it.

## Environment variables

| Variable | Effect |
| --- | --- |
| \`OPENAI_BASE_URL\` | Endpoint used when \`base_url\` is empty |
| \`OPENAI_API_KEY\` | The API key, read at request time; another variable can be named with \`api_key_env\` |
| \`BRAVE_API_KEY\`, \`TAVILY_API_KEY\` | web_search keys (names set by \`web.brave_api_key_env\`, \`web.tavily_api_key_env\`) |
| \`XDG_CONFIG_HOME\`, \`HOME\` | Where the global config file lives |
| \`NO_COLOR\` | Any non-empty value turns colour off |
| \`REPLIO_GREP_ENGINE\` | \`rg\`, \`builtin\` or \`auto\` (default: the built-in engine for a tree of at most 200 files and 1 MB, ripgrep for a larger one, the built-in engine where rg is missing): which engine grep uses |
| \`REPLIO_SERVE_TOKEN\` | Bearer token \`replio serve\` requires (needed to bind a non-loopback host; see serve.md) |

Keys are never stored in config or session files: only the names of the variables that hold them.
Each variable is read only when Deno grants it (\`--allow-env=NAME\`); an ungranted one reads as
unset, and replio says so when that hides the model endpoint or key (see sandbox.md).

## Keys
`;

/**
 * The markdown of docs/config.md: an introduction and one table row per key.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.match(renderConfigDocs(), /\| `max_rounds` \| an integer >= 1 \| `50` \|/);
 * ```
 */
export function renderConfigDocs(): string {
  const rows = Object.entries(CONFIG_KEYS).map(([name, spec]: [string, KeySpec]) => {
    const type = describeSchema(spec.schema) + (spec.mergesPerEntry ? " (per entry)" : "");
    return `| \`${name}\` | ${cell(type)} | \`${JSON.stringify(spec.default)}\` | ${
      cell(spec.doc)
    } |`;
  });
  return `${INTRO}
| Key | Type | Default | Description |
|---|---|---|---|
${rows.join("\n")}
`;
}

/** Pipes would end a table cell early. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

if (import.meta.main) {
  const target = new URL(`../../${CONFIG_DOCS_PATH}`, import.meta.url);
  await Deno.writeTextFile(target, renderConfigDocs());
}
