/**
 * web_search: a query in, a few results out, each with an id web_fetch accepts. The backend is
 * chosen by `web.search_backend`; its failures come back as one short error line.
 * @module
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ToolContext, ToolSpec } from "../../src/plugins/api.ts";
import { rememberResults, type SearchHit } from "./_result_ids.ts";
import { SEARCH_BACKENDS } from "./_search_backends.ts";
import DESCRIPTION from "./web_search.md" with { type: "text" };

/** The soft note for an empty result (spec/tools.md §Status and activity lines). */
const NO_RESULTS = "No search results found.";

const parameters = Type.Object({
  query: Type.String({
    description: "What to search for, as you would type it into a search engine",
  }),
});

/** web_search: the loop may refine a short `query` first (`query_refine`). */
export const webSearchSpec = {
  name: "web_search",
  description: DESCRIPTION,
  parameters,
  category: "search",
  permission: "web",
  // Backend keys (web.brave_api_key_env, web.tavily_api_key_env) are read when granted.
  deno: { net: true, env: ["BRAVE_API_KEY", "TAVILY_API_KEY"] },
  keyArg: "query",
  short: "Search the web; each result has an id web_fetch takes",
  aliases: ["search", "web"],
  paramAliases: { q: "query", search_query: "query", keywords: "query" },
  refine: "query",
  note: (result) => result === NO_RESULTS,
} satisfies ToolSpec<typeof parameters>;

/** Searches the web with the configured backend and lists the results with fetchable ids. */
export async function searchWeb(
  { query }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  const text = query.replace(/\s+/g, " ").trim();
  if (text === "") {
    throw new TypeError(`Cannot search for "${query}": the query is empty: pass the words to find`);
  }
  const count = ctx.config.get("search_results");
  const backend = SEARCH_BACKENDS[ctx.config.get("web.search_backend")];
  const hits = uniqueByUrl(await backend.search({ query: text, count, ctx })).slice(0, count);
  if (hits.length === 0) return NO_RESULTS;
  const ids = rememberResults(ctx.worktree, hits);
  const entries = hits.map((hit, i) =>
    [`[${ids[i]}] ${hit.title || hit.url}`, hit.url, ...(hit.snippet ? [hit.snippet] : [])]
      .join("\n")
  );
  return [`Results for "${text}" from ${backend.label}:`, ...entries].join("\n\n");
}

function uniqueByUrl(hits: readonly SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((hit) => !seen.has(hit.url) && seen.add(hit.url));
}
