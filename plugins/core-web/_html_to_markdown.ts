/**
 * HTML page to readable Markdown: linkedom parses, Readability keeps the article (dropping
 * navigation, scripts and boilerplate), Turndown writes Markdown. All three load on first use.
 * @module
 */

/** Elements that are never content; removed when Readability finds no article. */
const CHROME = "script, style, noscript, template, iframe, svg, canvas, nav, header, footer, " +
  "aside, form, button, dialog, [hidden], [aria-hidden=true]";

/** The slice of the DOM used here (Deno type-checks without the DOM library). */
interface HtmlElement {
  nodeName: string;
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
  const [{ parseHTML }, { Readability }, { default: TurndownService }] = await Promise.all([
    import("linkedom"),
    import("@mozilla/readability"),
    import("turndown"),
  ]);
  const parse = (text: string) => {
    const { document } = parseHTML(text) as unknown as { document: HtmlDocument };
    absolutizeLinks(document, pageUrl);
    return document;
  };
  const original = parse(html);
  const pageTitle = collapse(original.title ?? "");
  // Readability rewrites the document it reads, so the fallback parses the page afresh.
  const article = new Readability(original).parse();
  let content: HtmlElement;
  if (article?.content && collapse(article.textContent ?? "") !== "") {
    content = parse(`<!doctype html><html><body>${article.content}</body></html>`).body;
  } else {
    const document = parse(html);
    for (const element of document.querySelectorAll(CHROME)) element.remove();
    content = document.body;
  }
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
    emDelimiter: "_",
  });
  turndown.addRule("inline-images", {
    // data: URIs are kilobytes of base64 the model cannot read.
    filter: (node: HtmlElement) =>
      node.nodeName === "IMG" && /^data:/i.test(node.getAttribute("src") ?? ""),
    replacement: (_content: string, node: HtmlElement) => node.getAttribute("alt") ?? "",
  });
  turndown.addRule("script-links", {
    filter: (node: HtmlElement) =>
      node.nodeName === "A" && /^javascript:/i.test(node.getAttribute("href") ?? ""),
    replacement: (text: string) => text,
  });
  const markdown: string = turndown.turndown(content)
    .replace(/[ \t]+$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title: pageTitle || collapse(article?.title ?? ""), markdown };
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
