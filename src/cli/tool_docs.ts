/**
 * The generated part of docs/tools.md: every registered tool with its metadata, parameters and
 * the description the model reads. `deno task docs` rewrites it; a test fails when it is stale.
 * The rest of docs/tools.md (outside the markers) is written by hand.
 * @module
 */
import { CORE_PLUGIN } from "../agents/mod.ts";
import { describeSchema } from "../config/mod.ts";
import { BUNDLED_PLUGINS } from "../plugins/mod.ts";
import { type DenoNeeds, denoNeedsOf, type JsonSchema } from "../tools/mod.ts";

/** Marks where the generated reference starts in docs/tools.md. */
const BEGIN_MARKER =
  "<!-- BEGIN GENERATED TOOL REFERENCE: edit the tools, then run `deno task docs` -->";
/** Marks where it ends. */
const END_MARKER = "<!-- END GENERATED TOOL REFERENCE -->";

/** The reference section for every bundled and core tool, in registration order. */
function renderToolReference(): string {
  const sections: string[] = [];
  for (const plugin of [...BUNDLED_PLUGINS, CORE_PLUGIN]) {
    for (const { spec } of plugin.tools) {
      const aliases = (spec.aliases ?? []).map((a) => (typeof a === "string" ? a : a.name));
      const facts = [
        `plugin \`${plugin.name}\``,
        `category \`${spec.category}\``,
        `permission \`${spec.permission}\``,
        ...(aliases.length ? [`aliases ${aliases.map((a) => `\`${a}\``).join(", ")}`] : []),
        ...(spec.paramAliases
          ? [
            `parameter aliases ${
              Object.entries(spec.paramAliases).map(([k, v]) => `\`${k}\` → \`${v}\``).join(", ")
            }`,
          ]
          : []),
        ...(spec.alwaysAsk ? [`always asks (${spec.alwaysAsk})`] : []),
        ...(spec.permissionFn ? ["per-call permission function"] : []),
        ...(spec.pathArg ? [`path argument \`${spec.pathArg}\` (worktree scope)`] : []),
        ...(spec.refine ? [`\`${spec.refine}\` refined by query_refine`] : []),
        `Deno: ${describeDenoNeeds(denoNeedsOf(spec))}`,
      ];
      sections.push(
        `### ${spec.name}\n\n${facts.join(" · ")}\n\n${renderParameters(spec.parameters)}\n\n` +
          spec.description.trim().replace(/^#+ /gm, "**").replace(/^(\*\*.*)$/gm, "$1**"),
      );
    }
  }
  return `${BEGIN_MARKER}\n\n${sections.join("\n\n")}\n\n${END_MARKER}`;
}

/** The grants a tool needs, as docs/sandbox.md names them. */
function describeDenoNeeds(needs: DenoNeeds): string {
  const parts = [
    ...(needs.read ? ["read the worktree"] : []),
    ...(needs.write ? ["write the worktree"] : []),
    ...(needs.run?.length ? [`run ${needs.run.map((p) => `\`${p}\``).join(", ")}`] : []),
    ...(needs.net ? ["any host (`--allow-net`)"] : []),
    ...(needs.model ? ["the model host"] : []),
    ...(needs.env?.length
      ? [`reads ${needs.env.map((e) => `\`${e}\``).join(", ")} when granted`]
      : []),
  ];
  return parts.length ? parts.join(", ") : "nothing";
}

function renderParameters(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(properties).map(([name, prop]) => {
    const def = "default" in prop
      ? `\`${JSON.stringify(prop.default)}\``
      : required.has(name)
      ? "required"
      : "—";
    const doc = markdownCell(String(prop.description ?? ""));
    return `| \`${name}\` | ${describeSchema(prop)} | ${def} | ${doc} |`;
  });
  if (rows.length === 0) return "No parameters.";
  return ["| Parameter | Type | Default | Description |", "| --- | --- | --- | --- |", ...rows]
    .join("\n");
}

/**
 * A description (plain text for the model) as a table cell: quoted examples such as "*.ts"
 * become code, so Markdown (and `deno fmt`) cannot read their `*` and `_` as emphasis.
 */
function markdownCell(text: string): string {
  return text.split(/("[^"`]*[*_][^"`]*")/).map((part, i) =>
    i % 2 === 1 ? `\`${part.slice(1, -1)}\`` : part.replace(/[*]/g, "\\*")
  ).join("").replaceAll("|", "\\|");
}

/** docs/tools.md with its generated section replaced. */
export function updateToolDocs(current: string): string {
  const start = current.indexOf(BEGIN_MARKER);
  const end = current.indexOf(END_MARKER);
  if (start < 0 || end < start) {
    throw new SyntaxError(
      `Cannot update docs/tools.md: the generated-section markers are missing: restore them`,
    );
  }
  return current.slice(0, start) + renderToolReference() + current.slice(end + END_MARKER.length);
}

if (import.meta.main) {
  const path = new URL("../../docs/tools.md", import.meta.url);
  await Deno.writeTextFile(path, updateToolDocs(await Deno.readTextFile(path)));
}
