/**
 * Turndown rules for what people read on technical pages and Turndown alone loses: tables as
 * Markdown tables (Turndown runs their cells together), and code blocks kept verbatim in a
 * fence named with their language however the page marks it (`language-ts` on the code,
 * `highlight python` on the pre, `data-lang`, a `highlight-rust` wrapper).
 * @module
 */

/** The slice of a linkedom element these rules read. */
interface RuleNode {
  nodeName: string;
  parentNode: RuleNode | null;
  firstChild: RuleNode | null;
  children: Iterable<RuleNode>;
  textContent: string | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
}

/** The slice of a Turndown service these rules use. */
interface Turndown {
  addRule(
    name: string,
    rule: {
      filter: string | ((node: RuleNode) => boolean);
      replacement: (content: string, node: RuleNode) => string;
    },
  ): unknown;
  turndown(html: string): string;
}

/** Class names that carry a code block's language. */
const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight|sourceCode)-([\w+#.-]+)/i;
/** `highlight python`, `sourceCode js`: the language as a second class. */
const LANGUAGE_AFTER = /(?:^|\s)(?:highlight|sourceCode|code|brush:?)\s+([\w+#.-]+)/i;
/** Class names that are styling, never a language. */
const NOT_LANGUAGE = new Set([
  "highlight",
  "sourcecode",
  "hljs",
  "code",
  "notranslate",
  "nohighlight",
]);

/** Adds the table and code block rules to `turndown`. */
export function addReadingRules(turndown: unknown): void {
  const service = turndown as Turndown;
  service.addRule("tables", {
    filter: "table",
    replacement: (_content, node) => tableMarkdown(node, service),
  });
  service.addRule("code-blocks", {
    filter: "pre",
    replacement: (_content, node) => codeBlock(node),
  });
}

/**
 * A Markdown table: the first row is the header, cells are converted inline (line breaks
 * become spaces, `|` is escaped), and short rows are padded. A table used for layout (a cell
 * holding a block such as a list or another table) is left as text.
 */
function tableMarkdown(table: RuleNode, turndown: Turndown): string {
  const rows = tableRows(table);
  if (rows.length === 0) return "";
  const cells = rows.map((row) =>
    [...row.children].filter((c) => c.nodeName === "TD" || c.nodeName === "TH").flatMap(
      (cell) => {
        const text = turndown.turndown(cell.innerHTML).replace(/\s*\n+\s*/g, " ").trim()
          .replaceAll("|", "\\|");
        const span = Math.min(50, Math.max(1, Number(cell.getAttribute("colspan") ?? 1) || 1));
        return [text, ...Array<string>(span - 1).fill("")];
      },
    )
  );
  const width = Math.max(...cells.map((r) => r.length));
  if (width === 0) return "";
  const line = (row: string[]) =>
    `| ${[...row, ...Array<string>(width - row.length).fill("")].join(" | ")} |`;
  const [head, ...body] = cells;
  return `\n\n${
    [line(head!), `| ${Array<string>(width).fill("---").join(" | ")} |`, ...body.map(line)].join(
      "\n",
    )
  }\n\n`;
}

/** The rows of a table, through its head, bodies and foot, not those of nested tables. */
function tableRows(table: RuleNode): RuleNode[] {
  const rows: RuleNode[] = [];
  for (const child of table.children) {
    if (child.nodeName === "TR") rows.push(child);
    else if (["THEAD", "TBODY", "TFOOT"].includes(child.nodeName)) {
      for (const row of child.children) if (row.nodeName === "TR") rows.push(row);
    }
  }
  return rows;
}

/** A fence around the block's text exactly as written, longer than any backtick run in it. */
function codeBlock(pre: RuleNode): string {
  const text = (pre.textContent ?? "").replace(/\n$/, "");
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `\n\n${fence}${languageOf(pre)}\n${text}\n${fence}\n\n`;
}

/** The language a page gives a code block, or "". */
function languageOf(pre: RuleNode): string {
  const code = [...pre.children].find((c) => c.nodeName === "CODE");
  for (const node of [code, pre, pre.parentNode]) {
    if (!node) continue;
    const lang = node.getAttribute("data-lang") ?? node.getAttribute("data-language") ??
      node.getAttribute("lang");
    if (lang && /^[\w+#.-]+$/.test(lang)) return lang.toLowerCase();
    const classes = node.getAttribute("class") ?? "";
    const found = classes.match(LANGUAGE_CLASS)?.[1] ?? classes.match(LANGUAGE_AFTER)?.[1];
    if (found && !NOT_LANGUAGE.has(found.toLowerCase())) return found.toLowerCase();
  }
  return "";
}
