/**
 * web_fetch: one web page as text the model can read. HTML becomes Markdown of its article,
 * JSON and text come as they are, PDFs and binaries are only described; long pages come in
 * windows. Every hop is checked against private addresses unless `web.allow_private` is set;
 * the check leaves a DNS-rebinding gap between its lookup and fetch's own (see _check_host.ts).
 * @module
 */
import { type Static, type ToolContext, type ToolSpec, Type } from "../../src/plugins/api.ts";
import type { GuardedResponse } from "./_fetch_guarded.ts";
import { recallResult } from "./_result_ids.ts";
import DESCRIPTION from "./web_fetch.md" with { type: "text" };

/**
 * Pages kept for paging through windows without downloading and converting them again, and
 * for fetching a page again with its validators (a `304 Not Modified` reuses the copy).
 */
const CACHED_PAGES = 8;
/** A window ends at a line break when one falls in its last part, so lines stay whole. */
const LINE_SNAP_SHARE = 0.5;
/** Bytes sniffed for a `<meta charset>` when the header names none (the HTML spec's 1024). */
const CHARSET_SNIFF_BYTES = 1024;

/** Media types shown as text although they are not `text/*`. */
const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "application/x-ndjson",
  "application/csv",
]);
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"]);

const parameters = Type.Object({
  url: Type.Optional(Type.String({ description: "Absolute http or https URL of the page" })),
  id: Type.Optional(Type.String({
    description: 'Id of a web_search result, e.g. "r2", instead of url',
  })),
  offset: Type.Optional(Type.Integer({
    minimum: 0,
    default: 0,
    description: "Character offset of the window to show, as the previous result's marker says",
  })),
});

/** web_fetch: `open` and `fetch_page` are its aliases; its results are `noise_tools`. */
export const webFetchSpec = {
  name: "web_fetch",
  description: DESCRIPTION,
  parameters,
  category: "read",
  permission: "read",
  // Any host, and DNS for the private-address check: only an unrestricted --allow-net serves it.
  deno: { net: true },
  keyArg: "url",
  short: "Fetch a web page as Markdown or text, by URL or web_search result id",
  glyph: "↓",
  verb: "Fetch",
  aliases: ["open", "fetch_page"],
  paramAliases: { link: "url", uri: "url", href: "url", cursor: "offset", start: "offset" },
  note: (result) => result.startsWith("(end of content"),
} satisfies ToolSpec<typeof parameters>;

/** A fetched page: its header lines and its text, windowed on output. */
interface Page {
  url: URL;
  header: string;
  text: string;
  /** The validators the server sent, for a conditional fetch of the same URL. */
  etag?: string;
  lastModified?: string;
}

const cache = new Map<string, Page>();

/** Fetches a page by URL or web_search id and returns one window of it as Markdown or text. */
export async function fetchWebPage(
  { url, id, offset = 0 }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  const target = resolveTarget(url, id, ctx.worktree);
  const allowPrivate = ctx.config.get("web.allow_private");
  // Keyed by worktree and policy too, so a page fetched under one setting never leaks to another.
  const key = `${ctx.worktree}\n${allowPrivate}\n${target.href}`;
  const cached = cache.get(key);
  let page = offset > 0 ? cached : undefined;
  if (page === undefined) {
    const loaded = await loadPage(target, ctx, cached);
    if (typeof loaded === "string") return loaded;
    page = loaded;
  }
  cache.delete(key);
  cache.set(key, page);
  for (const old of cache.keys()) {
    if (cache.size <= CACHED_PAGES) break;
    cache.delete(old);
  }
  return renderWindow(page, offset, ctx.config.get("web.fetch_window_chars"));
}

/** The URL to fetch: `url`, a URL passed as `id` (`open`'s habit), or a remembered result. */
function resolveTarget(url: string | undefined, id: string | undefined, worktree: string): URL {
  const given = url ?? (id !== undefined && looksLikeUrl(id) ? id : undefined);
  if (given !== undefined) return parseWebUrl(given.trim());
  if (id === undefined) {
    throw new TypeError(
      `Cannot fetch a page: neither "url" nor "id" was given: pass url="https://…" or the ` +
        `id of a web_search result`,
    );
  }
  const hit = recallResult(worktree, id);
  if (hit === undefined) {
    throw new RangeError(
      `Cannot fetch result "${id}": no web_search result has that id: pass the page's url, ` +
        `or run web_search again and use an id it lists`,
    );
  }
  return parseWebUrl(hit.url);
}

function looksLikeUrl(text: string): boolean {
  return /^\s*(https?:\/\/|www\.)/i.test(text);
}

function parseWebUrl(text: string): URL {
  // Models often leave out the scheme ("example.com/page"); a bare host means https.
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^[^/:]+:\d+(\/|$)/.test(text)
    ? text
    : `https://${text}`;
  if (!URL.canParse(withScheme)) {
    throw new TypeError(
      `Cannot fetch "${text}": it is not a valid URL: pass an absolute http(s) URL`,
    );
  }
  const parsed = new URL(withScheme);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new RangeError(
      `Cannot fetch "${text}": only http and https URLs can be fetched: pass an http(s) URL ` +
        `(file_read reads local files)`,
    );
  }
  return parsed;
}

/**
 * Downloads and converts a page; a binary gives its one-line description instead. With a copy
 * fetched before, the request carries its validators, and `304 Not Modified` reuses it.
 */
async function loadPage(url: URL, ctx: ToolContext, cached?: Page): Promise<Page | string> {
  const { config } = ctx;
  const action = `Cannot fetch "${url.href}"`;
  const maxBytes = config.get("web.fetch_max_bytes");
  // The fetcher and the converters load on the first fetch, not with every start.
  const { fetchGuarded } = await import("./_fetch_guarded.ts");
  const response = await fetchGuarded(url, {
    action,
    allowPrivate: config.get("web.allow_private"),
    timeoutMs: config.get("web.fetch_timeout") * 1000,
    maxBytes,
    maxRedirects: config.get("web.max_redirects"),
    signal: ctx.signal,
    headers: {
      accept: "text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8," +
        "application/pdf;q=0.8,*/*;q=0.5",
      "user-agent": "Mozilla/5.0 (compatible; replio web_fetch)",
      ...(cached?.etag ? { "if-none-match": cached.etag } : {}),
      ...(cached?.lastModified ? { "if-modified-since": cached.lastModified } : {}),
    },
    wantsBody: (r) => r.ok && kindOf(mediaType(r.headers), null) !== "binary",
  });
  if (response.status === 304 && cached) return cached;
  if (response.status < 200 || response.status > 299) {
    throw new Error(
      `${action}: HTTP ${response.status} ${response.statusText}: check the URL, or find the ` +
        `page with web_search`,
    );
  }
  const type = mediaType(response.headers);
  const body = response.body ?? new Uint8Array();
  const kind = kindOf(type, response.body);
  if (kind === "binary") return describeBinary(response, type);
  const about = [
    ...(kind === "text" ? [type || "text"] : []),
    ...(response.url.href === url.href ? [] : [`redirected from ${url.href}`]),
  ];
  const lines = [`URL: ${response.url.href}${about.length ? ` (${about.join(", ")})` : ""}`];
  if (response.isTruncated) {
    lines.push(
      `(Only the first ${maxBytes} bytes were downloaded: the page is larger than ` +
        `web.fetch_max_bytes)`,
    );
  }
  const validators = {
    ...(response.headers.get("etag") ? { etag: response.headers.get("etag")! } : {}),
    ...(response.headers.get("last-modified")
      ? { lastModified: response.headers.get("last-modified")! }
      : {}),
  };
  if (kind === "pdf") return await loadPdf(response, body, lines, validators);
  const text = decodeBody(body, charsetOf(response.headers, kind === "html" ? body : null));
  if (kind === "text") return { url: response.url, header: lines.join("\n"), text, ...validators };
  const { htmlToMarkdown } = await import("./_html_to_markdown.ts");
  const { title, markdown } = await htmlToMarkdown(text, response.url);
  return {
    url: response.url,
    header: [...(title === "" ? [] : [`# ${title}`]), ...lines].join("\n"),
    text: markdown,
    ...validators,
  };
}

/** A PDF's text per page; one cut short by `web.fetch_max_bytes` cannot be read at all. */
async function loadPdf(
  response: GuardedResponse,
  body: Uint8Array,
  lines: string[],
  validators: Pick<Page, "etag" | "lastModified">,
): Promise<Page> {
  const action = `Cannot read the PDF at "${response.url.href}"`;
  if (response.isTruncated) {
    throw new Error(
      `${action}: it is larger than web.fetch_max_bytes (${body.length} bytes downloaded), ` +
        "and a PDF cut short cannot be read: raise web.fetch_max_bytes",
    );
  }
  let pdf;
  try {
    pdf = await (await import("./_pdf_to_text.ts")).pdfToText(body);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`${action}: ${detail}: look for an HTML version of it`);
  }
  lines[0] = `${lines[0]} (PDF, ${pdf.pages} ${pdf.pages === 1 ? "page" : "pages"})`;
  const header = [...(pdf.title === "" ? [] : [`# ${pdf.title}`]), ...lines].join("\n");
  return { url: response.url, header, text: pdf.text, ...validators };
}

/** The media type without parameters, lower case; empty when the server sent none. */
function mediaType(headers: Headers): string {
  return (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * How to show a body of media type `type`. Without a useful type, the first bytes decide
 * (`body` null means not downloaded yet: assume text until seen).
 */
function kindOf(type: string, body: Uint8Array | null): "html" | "text" | "pdf" | "binary" {
  if (HTML_TYPES.has(type)) return "html";
  if (type === "application/pdf" || type === "application/x-pdf") return "pdf";
  if (type.startsWith("text/") || TEXT_TYPES.has(type) || /\+(json|xml)$/.test(type)) {
    return "text";
  }
  if (type !== "" && type !== "application/octet-stream") return "binary";
  if (body === null) return "text";
  const head = new TextDecoder().decode(body.subarray(0, CHARSET_SNIFF_BYTES));
  if (head.startsWith("%PDF-")) return "pdf";
  if (head.includes("\0")) return "binary";
  return /^\s*(<!doctype html|<html)/i.test(head) ? "html" : "text";
}

function describeBinary(response: GuardedResponse, type: string): string {
  const length = response.headers.get("content-length") ??
    (response.body === null || response.isTruncated ? null : String(response.body.length));
  const size = length === null ? "size unknown" : `${length} bytes`;
  return `${response.url.href} is binary content (${type || "no content type"}, ${size}): ` +
    `web_fetch shows only HTML, text and JSON`;
}

/** The charset from the header, else from an HTML `<meta>` in the first bytes, else UTF-8. */
function charsetOf(headers: Headers, html: Uint8Array | null): string {
  const fromHeader = headers.get("content-type")?.match(/charset\s*=\s*"?([\w.:-]+)/i)?.[1];
  if (fromHeader) return fromHeader;
  if (html === null) return "utf-8";
  const head = new TextDecoder("latin1").decode(html.subarray(0, CHARSET_SNIFF_BYTES));
  return head.match(/<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i)?.[1] ?? "utf-8";
}

function decodeBody(body: Uint8Array, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch (error) {
    // An unknown label (a typo on the server) is shown as UTF-8 rather than refused.
    if (!(error instanceof RangeError)) throw error;
    decoder = new TextDecoder();
  }
  return decoder.decode(body);
}

/** The header, one window of the text, and a marker saying where the window is. */
function renderWindow(page: Page, offset: number, windowChars: number): string {
  const total = page.text.length;
  if (offset > 0 && offset >= total) {
    return `(end of content: offset=${offset} is past the ${total} chars of ${page.url.href})`;
  }
  if (total === 0) return `${page.header}\n\n(no readable text on this page)`;
  const end = windowEnd(page.text, offset, windowChars);
  const slice = page.text.slice(offset, end);
  if (offset === 0 && end === total) return `${page.header}\n\n${slice}`;
  const next = end < total ? `call web_fetch again with offset=${end}` : "end of page";
  return `${page.header}\n\n${slice.trimEnd()}\n\n` +
    `[Showing chars ${offset}-${end} of ${total}: ${next}]`;
}

function windowEnd(text: string, offset: number, windowChars: number): number {
  const limit = offset + windowChars;
  if (limit >= text.length) return text.length;
  const lineEnd = text.lastIndexOf("\n", limit - 1) + 1;
  return lineEnd > offset + windowChars * LINE_SNAP_SHARE ? lineEnd : limit;
}
