/**
 * web_search: a query in, a few results out, each with an id web_fetch accepts. The backend is
 * chosen by `web.search_backend`; its failures come back as one short error line.
 * @module
 */
import { type Static, type ToolContext, type ToolSpec, Type } from "../../src/plugins/api.ts";
import { rememberResults, type SearchHit } from "./_result_ids.ts";
import type { SearchBackend } from "./_search_backends.ts";
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

/**
 * Searches the web with the configured backends (`web.search_backends`, else
 * `web.search_backend`) and lists the results with fetchable ids. Backends are asked together
 * within `web.search_timeout`; when some fail or do not answer, the others' results come with
 * a note naming them.
 */
export async function searchWeb(
  { query }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  const text = query.replace(/\s+/g, " ").trim();
  if (text === "") {
    throw new TypeError(`Cannot search for "${query}": the query is empty: pass the words to find`);
  }
  const count = ctx.config.get("search_results");
  const listed = ctx.config.get("web.search_backends");
  const names = listed.length > 0 ? [...new Set(listed)] : [ctx.config.get("web.search_backend")];
  const timeoutS = ctx.config.get("web.search_timeout");
  // The backends load on the first search, not with every start.
  const { SEARCH_BACKENDS } = await import("./_search_backends.ts");
  const outcomes = await Promise.all(
    names.map((name) => askBackend(SEARCH_BACKENDS[name], text, count, ctx, timeoutS)),
  );
  const answered = outcomes.filter((o) => o.hits !== null);
  const failed = outcomes.filter((o) => o.hits === null);
  if (answered.length === 0) {
    if (failed.length === 1) throw failed[0]!.error;
    throw new Error(
      `Cannot search: no backend answered: ${failed.map((f) => f.problem).join("; ")}`,
    );
  }
  const hits = uniqueByUrl(interleave(answered.map((o) => o.hits!))).slice(0, count);
  const partial = failed.length === 0
    ? ""
    : `(partial results: ${failed.map((f) => f.problem).join("; ")}; results from ${
      answered.map((o) => o.label).join(", ")
    })`;
  if (hits.length === 0) return partial === "" ? NO_RESULTS : `${NO_RESULTS}\n${partial}`;
  const ids = rememberResults(ctx.worktree, hits);
  const entries = hits.map((hit, i) =>
    [`[${ids[i]}] ${hit.title || hit.url}`, hit.url, ...(hit.snippet ? [hit.snippet] : [])]
      .join("\n")
  );
  const from = answered.map((o) => o.label).join(" and ");
  return [`Results for "${text}" from ${from}:`, ...entries, ...(partial ? [partial] : [])]
    .join("\n\n");
}

/** One backend's answer, or why there is none. */
interface BackendOutcome {
  label: string;
  hits: SearchHit[] | null;
  /** For a failure: the error, and a short phrase for the partial-results note. */
  error?: unknown;
  problem?: string;
}

/** Asks one backend, giving up after `timeoutS` seconds with a clear error. */
async function askBackend(
  backend: SearchBackend,
  query: string,
  count: number,
  ctx: ToolContext,
  timeoutS: number,
): Promise<BackendOutcome> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutS * 1000);
  const signal = AbortSignal.any([ctx.signal, timeout.signal]);
  try {
    const hits = await backend.search({ query, count, ctx: { ...ctx, signal } });
    return { label: backend.label, hits };
  } catch (error) {
    ctx.signal.throwIfAborted();
    if (timeout.signal.aborted) {
      const seconds = timeoutS.toFixed(1);
      return {
        label: backend.label,
        hits: null,
        error: new Error(
          `Cannot search with ${backend.label}: no answer within ${seconds} s ` +
            `(web.search_timeout): search again, or add another backend to web.search_backends`,
        ),
        problem: `${backend.label} did not answer within ${seconds} s`,
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      label: backend.label,
      hits: null,
      error,
      problem: `${backend.label} failed: ${
        message.replace(`Cannot search with ${backend.label}: `, "")
      }`,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** Results taken in turns from each backend, so each one's best come first. */
function interleave(lists: readonly SearchHit[][]): SearchHit[] {
  const out: SearchHit[] = [];
  for (let i = 0; lists.some((list) => i < list.length); i++) {
    for (const list of lists) if (i < list.length) out.push(list[i]!);
  }
  return out;
}

function uniqueByUrl(hits: readonly SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((hit) => !seen.has(hit.url) && seen.add(hit.url));
}
