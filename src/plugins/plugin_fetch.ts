/**
 * A URL plugin's source: one ESM file, fetched with plain `fetch` (no runtime `import()` of a
 * remote graph, so a compiled binary loads it the same way) and checked against the `sha256-`
 * integrity pinned in config. The cache is content-addressed, so a pinned copy is used offline
 * and a changed file at the same URL is refused until `replio plugin update`.
 * @module
 */
import { readCacheEntry, sha256Integrity, writeCached } from "./plugin_cache.ts";

/** How long fetching one plugin may take. */
const FETCH_TIMEOUT_MS = 15_000;

/** Fetches a module's text; throws with what to do next. */
export async function fetchPluginSource(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new Error(`cannot fetch ${url} (${detail}): check the URL and the network`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new Error(`cannot fetch ${url}: HTTP ${response.status}: check the URL`);
  }
  return await response.text();
}

/** Options for {@link loadPinnedSource}. */
export interface PinnedSourceOptions {
  /** Skip the cached copy: the caller found something derived from it changed. */
  refetch?: boolean;
  /** Receives a note when a cached copy was changed and so not used. */
  warn?: (message: string) => void;
}

/**
 * The source pinned by `integrity`: the cached copy when there is one (no network), else the
 * fetched file, refused when it does not match the pin.
 */
export async function loadPinnedSource(
  url: string,
  integrity: string,
  options: PinnedSourceOptions = {},
): Promise<string> {
  if (!options.refetch) {
    const cached = await readCacheEntry(integrity, "source");
    if (cached.state === "hit") return cached.text;
    if (cached.state === "changed") {
      options.warn?.(
        `Not using the cached copy of plugin "${url}": "${cached.file}" does not match its ` +
          "pin: fetched it again",
      );
    }
  }
  const source = await fetchPluginSource(url);
  const actual = await sha256Integrity(source);
  if (actual !== integrity) {
    throw new Error(
      `${url} changed since it was added (integrity ${actual}, pinned ${integrity}): ` +
        `review it, then run \`replio plugin update ${url}\` to accept the new version`,
    );
  }
  await writeCached(integrity, "source", source);
  return source;
}

/** Fetches a plugin afresh and caches it; returns its source and integrity (plugin add/update). */
export async function fetchAndPin(url: string): Promise<{ source: string; integrity: string }> {
  const source = await fetchPluginSource(url);
  const integrity = await sha256Integrity(source);
  await writeCached(integrity, "source", source);
  return { source, integrity };
}
