/**
 * HTML page to readable Markdown: linkedom parses, Readability keeps the article of an article
 * page (dropping navigation, scripts and boilerplate), Turndown writes Markdown. All three load
 * on first use.
 * @module
 */
import { addReadingRules } from "./_markdown_rules.ts";

/** Elements that are never content, removed before Readability looks for the article. */
const NEVER_CONTENT = "script, style, noscript, template, iframe, svg, canvas, nav, " +
  "[role=navigation], form, button, dialog, [hidden], [aria-hidden=true]";

/** Page chrome also removed when a page is no article and its whole body is shown. */
const CHROME = "header, footer, aside, [role=banner], [role=contentinfo], [role=complementary]";

/** The slice of the DOM used here (Deno type-checks without the DOM library). */
interface HtmlElement {
  nodeName: string;
  parentNode: HtmlElement | null;
  nextSibling: unknown;
  children: Iterable<HtmlElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  remove(): void;
}

/** A parsed linkedom document, as far as this module uses it. */
interface HtmlDocument {
  title: string | null;
  body: HtmlElement;
  querySelector(selector: string): HtmlElement | null;
  querySelectorAll(selector: string): Iterable<HtmlElement>;
}

/** A page as Markdown: its title (may be empty) and body. */
export interface MarkdownPage {
  title: string;
  markdown: string;
}

/** Converts an HTML page fetched from `pageUrl` (links are made absolute against it). */
export async function htmlToMarkdown(html: string, pageUrl: URL): Promise<MarkdownPage> {
  const [{ parseHTML }, { isProbablyReaderable, Readability }, { default: TurndownService }] =
    await Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")]);
  const parse = (text: string) => {
    const { document } = parseHTML(text) as unknown as { document: HtmlDocument };
    for (const element of document.querySelectorAll(NEVER_CONTENT)) element.remove();
    absolutizeLinks(document, pageUrl);
    return document;
  };
  const document = parse(html);
  const title = collapse(document.title ?? "");
  let content: HtmlElement;
  if (isProbablyReaderable(document)) {
    // An article: Readability keeps its text and drops the boilerplate around it; keepClasses
    // leaves `language-*` on code blocks, which is how Turndown names a fence's language.
    const article = new Readability(document, { keepClasses: true }).parse();
    content = parse(`<!doctype html><html><body>${article?.content ?? ""}</body></html>`).body;
  } else {
    // A listing, form or status page: Readability would keep only its largest block.
    for (const element of document.querySelectorAll(CHROME)) element.remove();
    content = document.body;
  }
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
  });
  // Turndown escapes every `_`, `*`, `[` and `\` in text, so PAGE_TOKEN_4471 would reach the
  // model as PAGE\_TOKEN\_4471, an identifier it could no longer copy. Only text that would turn
  // into structure at a line start keeps its escape.
  turndown.escape = escapeLineStart;
  turndown.addRule("inline-images", {
    // data: URIs are kilobytes of base64 the model cannot read.
    filter: (node: HtmlElement) =>
      node.nodeName === "IMG" && /^data:/i.test(node.getAttribute("src") ?? ""),
    replacement: (_content: string, node: HtmlElement) => node.getAttribute("alt") ?? "",
  });
  turndown.addRule("list-items", {
    // Turndown pads bullets to four columns ("-   item"); one space reads the same, shorter.
    filter: "li",
    replacement: (content: string, node: HtmlElement) => {
      const list = node.parentNode;
      const prefix = list?.nodeName === "OL"
        ? `${Number(list.getAttribute("start") ?? 1) + [...list.children].indexOf(node)}. `
        : "- ";
      const body = content.replace(/^\n+/, "").replace(/\n+$/, "\n")
        .replace(/\n/g, `\n${" ".repeat(prefix.length)}`);
      return `${prefix}${body}${node.nextSibling && !body.endsWith("\n") ? "\n" : ""}`;
    },
  });
  addReadingRules(turndown);
  turndown.addRule("script-links", {
    filter: (node: HtmlElement) =>
      node.nodeName === "A" && /^javascript:/i.test(node.getAttribute("href") ?? ""),
    replacement: (text: string) => text,
  });
  const markdown: string = turndown.turndown(content)
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title, markdown };
}

/** Markers that would make a text line a heading, list item, quote, rule or fence. */
const LINE_START_ESCAPES: readonly [RegExp, string][] = [
  [/^(#{1,6})( |$)/gm, "\\$1$2"],
  [/^([-+*])( |$)/gm, "\\$1$2"],
  [/^(\d+)([.)])( |$)/gm, "$1\\$2$3"],
  [/^>/gm, "\\>"],
  [/^(=+|-{3,})$/gm, "\\$1"],
  [/^(```|~~~)/gm, "\\$1"],
];

/** Escapes text only where it would become Markdown structure at a line start. */
function escapeLineStart(text: string): string {
  return LINE_START_ESCAPES.reduce(
    (out, [pattern, replacement]) => out.replace(pattern, replacement),
    text,
  );
}

/** Rewrites relative `href` and `src` against the page (and its `<base>`), as a browser would. */
function absolutizeLinks(document: HtmlDocument, pageUrl: URL): void {
  const baseHref = document.querySelector("base[href]")?.getAttribute("href");
  const base = baseHref && URL.canParse(baseHref, pageUrl) ? new URL(baseHref, pageUrl) : pageUrl;
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute) ?? "";
      if (URL.canParse(value, base) && !/^(data|javascript):/i.test(value)) {
        element.setAttribute(attribute, new URL(value, base).href);
      }
    }
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
