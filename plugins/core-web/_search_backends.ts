/**
 * The web_search backends chosen by `web.search_backend`: DuckDuckGo's HTML endpoint (no key),
 * a SearXNG instance's JSON API, Brave Search and Tavily (keys read from the environment).
 * @module
 */
import type { ToolContext } from "../../src/plugins/api.ts";
import { fetchGuarded, type GuardedResponse } from "./_fetch_guarded.ts";
import type { SearchHit } from "./_result_ids.ts";

/** Longest snippet kept per result: enough to judge relevance, short enough for many results. */
const SNIPPET_CHARS = 300;

/** Both key-based APIs refuse more results per request than this. */
const API_MAX_COUNT = 20;

/** DuckDuckGo serves its bot check to unknown agents more readily. */
const BROWSER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/** One search through one backend. */
export interface BackendRequest {
  query: string;
  /** How many results are wanted (`search_results`); a backend may return more. */
  count: number;
  ctx: ToolContext;
}

/** A search service. */
export interface SearchBackend {
  /** The name used in messages. */
  label: string;
  search(request: BackendRequest): Promise<SearchHit[]>;
}

/** The backends by their `web.search_backend` name (the config schema lists the same names). */
export const SEARCH_BACKENDS = {
  duckduckgo: { label: "DuckDuckGo", search: searchDuckDuckGo },
  searxng: { label: "SearXNG", search: searchSearxng },
  brave: { label: "Brave Search", search: searchBrave },
  tavily: { label: "Tavily", search: searchTavily },
} as const satisfies Readonly<Record<string, SearchBackend>>;

async function searchDuckDuckGo({ query, ctx }: BackendRequest): Promise<SearchHit[]> {
  const label = "DuckDuckGo";
  const endpoint = configUrl(label, "web.duckduckgo_url", ctx);
  const response = await callBackend({
    label,
    url: endpoint,
    ctx,
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": BROWSER_AGENT },
    body: new URLSearchParams({ q: query }).toString(),
  });
  const { parseHTML } = await import("linkedom");
  const { document } = parseHTML(decode(response)) as unknown as { document: HtmlNode };
  // DuckDuckGo answers too many searches with 202 and a CAPTCHA page instead of results.
  if (response.status === 202 || document.querySelector(".anomaly-modal, #challenge-form")) {
    throw new Error(
      `Cannot search with ${label}: it answered with a bot check (too many searches): ` +
        `wait a few minutes, or set web.search_backend to searxng, brave or tavily`,
    );
  }
  const hits: SearchHit[] = [];
  for (const result of document.querySelectorAll(".result")) {
    const link = result.querySelector("a.result__a");
    const href = link?.getAttribute("href");
    if (!link || !href || result.getAttribute("class")?.includes("result--ad")) continue;
    if (!URL.canParse(href, endpoint)) continue;
    const url = new URL(href, endpoint);
    // Result links go through DuckDuckGo's redirector with the target in `uddg`.
    const target = url.pathname === "/l/" ? url.searchParams.get("uddg") : url.href;
    if (!target || /duckduckgo\.com\/y\.js/.test(target)) continue;
    hits.push({
      title: clean(link.textContent ?? ""),
      url: target,
      snippet: clean(result.querySelector(".result__snippet")?.textContent ?? ""),
    });
  }
  return hits;
}

async function searchSearxng({ query, ctx }: BackendRequest): Promise<SearchHit[]> {
  const label = "SearXNG";
  const base = ctx.config.get("web.searxng_url").trim();
  if (base === "") {
    throw new Error(
      `Cannot search with ${label}: web.searxng_url is not set: set it to your instance's ` +
        `address, e.g. "http://127.0.0.1:8888"`,
    );
  }
  const instance = configUrl(label, "web.searxng_url", ctx);
  if (!instance.pathname.endsWith("/")) instance.pathname += "/"; // keep a path prefix
  const url = new URL("search", instance);
  url.searchParams.set("q", query);
  url.searchParams.set("format", "json");
  const jsonFix = `enable the json format in the instance's settings.yml ` +
    `(search: formats: [html, json])`;
  const response = await callBackend({ label, url, ctx, fixes: { 403: jsonFix } });
  const reply = parseReply(label, response, `check that web.searxng_url is a SearXNG instance`);
  return hitsFrom(reply.results, "content");
}

async function searchBrave({ query, count, ctx }: BackendRequest): Promise<SearchHit[]> {
  const label = "Brave Search";
  const env = ctx.config.get("web.brave_api_key_env");
  const key = readApiKey(label, env);
  const url = configUrl(label, "web.brave_url", ctx);
  url.searchParams.set("q", query);
  url.searchParams.set("count", String(Math.min(count, API_MAX_COUNT)));
  const keyFix = `check the API key in the environment variable "${env}"`;
  const response = await callBackend({
    label,
    url,
    ctx,
    headers: { accept: "application/json", "x-subscription-token": key },
    fixes: { 401: keyFix, 403: keyFix },
  });
  const reply = parseReply(label, response, `check that web.brave_url is Brave's search API`);
  const web = reply.web as { results?: unknown } | undefined;
  // Brave marks query terms up with <strong> and escapes entities in titles and snippets.
  const { parseHTML } = await import("linkedom");
  const text = (html: string) => {
    const page = parseHTML(`<html><body>${html}</body></html>`);
    return (page as unknown as { document: { body: HtmlNode } }).document.body.textContent ?? "";
  };
  return hitsFrom(web?.results, "description").map((hit) => ({
    ...hit,
    title: clean(text(hit.title)),
    snippet: clean(text(hit.snippet)),
  }));
}

async function searchTavily({ query, count, ctx }: BackendRequest): Promise<SearchHit[]> {
  const label = "Tavily";
  const env = ctx.config.get("web.tavily_api_key_env");
  const key = readApiKey(label, env);
  const keyFix = `check the API key in the environment variable "${env}"`;
  const response = await callBackend({
    label,
    url: configUrl(label, "web.tavily_url", ctx),
    ctx,
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, max_results: Math.min(count, API_MAX_COUNT) }),
    fixes: { 401: keyFix, 403: keyFix, 432: "your plan's limit is used up: upgrade it" },
  });
  const reply = parseReply(label, response, `check that web.tavily_url is Tavily's search API`);
  return hitsFrom(reply.results, "content");
}

/** The part of a linkedom node the DuckDuckGo parser reads. */
interface HtmlNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): HtmlNode | null;
  querySelectorAll(selector: string): Iterable<HtmlNode>;
}

/** Options for {@link callBackend}. */
interface BackendCall {
  label: string;
  url: URL;
  ctx: ToolContext;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** What to do about an HTTP status, when the backend has a better fix than the default. */
  fixes?: Readonly<Record<number, string>>;
}

/** Sends the request; a rate limit or any other non-2xx status becomes a short error. */
async function callBackend(call: BackendCall): Promise<GuardedResponse> {
  const { label, ctx } = call;
  const response = await fetchGuarded(call.url, {
    action: `Cannot search with ${label}`,
    // The backend is the user's own configuration, not a URL a page chose; a SearXNG on
    // localhost is the usual set-up.
    allowPrivate: true,
    timeoutMs: ctx.config.get("web.fetch_timeout") * 1000,
    maxBytes: ctx.config.get("web.fetch_max_bytes"),
    maxRedirects: ctx.config.get("web.max_redirects"),
    signal: ctx.signal,
    ...(call.method === undefined ? {} : { method: call.method }),
    ...(call.headers === undefined ? {} : { headers: call.headers }),
    ...(call.body === undefined ? {} : { body: call.body }),
  });
  if (response.status === 429) {
    throw new Error(
      `Cannot search with ${label}: rate limited (HTTP 429): wait a minute and search again, ` +
        `or set web.search_backend to another backend`,
    );
  }
  if (response.status < 200 || response.status > 299) {
    const fix = call.fixes?.[response.status] ??
      "try again later, or set web.search_backend to another backend";
    throw new Error(
      `Cannot search with ${label}: HTTP ${response.status} ${response.statusText}: ${fix}`,
    );
  }
  return response;
}

/** A URL from config, or an error naming the key. */
function configUrl(
  label: string,
  key: "web.duckduckgo_url" | "web.searxng_url" | "web.brave_url" | "web.tavily_url",
  ctx: ToolContext,
): URL {
  const value = ctx.config.get(key).trim();
  if (!URL.canParse(value)) {
    throw new TypeError(
      `Cannot search with ${label}: ${key} is not a URL: "${value}": set it to an http(s) URL`,
    );
  }
  return new URL(value);
}

function readApiKey(label: string, env: string): string {
  let key: string | undefined;
  try {
    key = env === "" ? undefined : Deno.env.get(env);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) throw error;
    throw new Deno.errors.NotCapable(
      `Cannot search with ${label}: replio may not read the environment variable "${env}": ` +
        `restart it with --allow-env=${env}`,
    );
  }
  if (key === undefined || key.trim() === "") {
    throw new Error(
      `Cannot search with ${label}: the environment variable "${env}" holding its API key is ` +
        `not set: export the key in it, or set web.search_backend to duckduckgo`,
    );
  }
  return key.trim();
}

function parseReply(
  label: string,
  response: GuardedResponse,
  fix: string,
): Record<string, unknown> {
  let reply: unknown;
  try {
    reply = JSON.parse(decode(response));
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new SyntaxError(`Cannot search with ${label}: the reply is not JSON: ${fix}`);
  }
  if (typeof reply !== "object" || reply === null || Array.isArray(reply)) {
    throw new TypeError(`Cannot search with ${label}: the reply is not a JSON object: ${fix}`);
  }
  return reply as Record<string, unknown>;
}

/** Results from a JSON list of `{title, url, <snippetField>}`; malformed entries are skipped. */
function hitsFrom(items: unknown, snippetField: string): SearchHit[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item) => {
    const { title, url, [snippetField]: snippet } = (item ?? {}) as Record<string, unknown>;
    if (typeof url !== "string" || !URL.canParse(url)) return [];
    return [{
      title: clean(typeof title === "string" ? title : ""),
      url,
      snippet: clean(typeof snippet === "string" ? snippet : ""),
    }];
  });
}

function decode(response: GuardedResponse): string {
  return new TextDecoder().decode(response.body ?? new Uint8Array());
}

function clean(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1).trimEnd()}…` : flat;
}
