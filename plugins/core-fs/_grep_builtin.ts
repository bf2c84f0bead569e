/**
 * grep's built-in engine: the directory walk, then the files searched on this thread and, for
 * large trees, on worker threads too. Output matches ripgrep's line for line.
 * @module
 */
import { basename } from "../../src/plugins/api.ts";
import { compileGlob } from "./_match_glob.ts";
import { createScanTools, type ScanSpec, searchFile } from "./_grep_scan.ts";
import type { FileMatches, SearchCoverage, SearchOutcome, SearchRequest } from "./_grep_types.ts";
import { holdsAtMost, pauser, type WalkedFile, walkFiles, type WalkOptions } from "./_walk.ts";
import { SMALL_TREE_BYTES, SMALL_TREE_FILES, totalBytesAtMost } from "./_small_tree.ts";

/** Below this many files a worker's start-up (tens of ms) costs more than it saves. */
const PARALLEL_MIN_FILES = 2000;
/** Files handed to a worker at a time: large enough to amortise a message, small enough to share. */
const BATCH_FILES = 200;
/** Workers started at most, besides this thread. */
const MAX_WORKERS = 3;
/** The worker's module, beside this one; it is absent from bundles, which then search here. */
const WORKER_URL = new URL("./_grep_worker.ts", import.meta.url);

/** A message to a search worker. */
export type WorkerRequest =
  | { type: "start"; spec: ScanSpec }
  | { type: "search"; paths: string[] };

/** A search worker's answer to one batch. */
export interface WorkerReply {
  found: FileMatches[];
}

/**
 * The search of a small tree or file ({@link SMALL_TREE_FILES}), done here; null for a larger one,
 * which ripgrep searches faster.
 */
export async function searchIfSmall(request: SearchRequest): Promise<SearchOutcome | null> {
  if (request.isFile) {
    return totalBytesAtMost([request.target], SMALL_TREE_BYTES)
      ? await searchBuiltin(request)
      : null;
  }
  if (!holdsAtMost(request.target, SMALL_TREE_FILES)) return null;
  const walk = await walkFiles(await walkOptions(request));
  if (!walk.complete || !totalBytesAtMost(walk.files.map((f) => f.path), SMALL_TREE_BYTES)) {
    return null;
  }
  return await searchBuiltin(request, walk.files);
}

/** The walk of the request's folder, kept to its `glob=` pattern. */
async function walkOptions(request: SearchRequest): Promise<WalkOptions> {
  const isMatch = request.glob === undefined ? null : await compileGlob(request.glob);
  return {
    root: request.target,
    worktree: request.worktree,
    signal: request.signal,
    deadline: request.deadline,
    filter: isMatch ? (f) => isMatch(f.rel) : undefined,
  };
}

/**
 * Searches the request's files (those `walked` already, when given) without any external
 * program. Files are read synchronously into one reused buffer (async reads cost several times
 * more per small file), pausing every few milliseconds so that cancellation lands.
 */
export async function searchBuiltin(
  request: SearchRequest,
  walked?: WalkedFile[],
): Promise<SearchOutcome> {
  const { target, signal, deadline, maxResults } = request;
  let files: WalkedFile[];
  let stoppedBy: SearchCoverage["stoppedBy"] | null = null;
  let dirsUnread = 0;
  if (walked) {
    files = walked;
  } else if (request.isFile) {
    files = [{ path: target, rel: basename(target) }];
  } else {
    const walk = await walkFiles(await walkOptions(request));
    if (walk.stoppedBy) stoppedBy = walk.stoppedBy;
    dirsUnread = walk.dirsUnread;
    files = walk.files;
  }
  const spec = {
    source: request.regex.source,
    flags: request.regex.flags,
    context: request.context,
  };
  const tools = createScanTools(spec, pauser(signal));
  const paths = files.map((f) => f.path);
  const batches: string[][] = [];
  for (let i = paths.length; i > 0; i -= BATCH_FILES) {
    batches.push(paths.slice(Math.max(0, i - BATCH_FILES), i));
  }
  const found: FileMatches[] = [];
  const counts = { searched: 0, matched: 0 };
  const pool = paths.length >= PARALLEL_MIN_FILES
    ? startWorkers(spec, batches, found, counts)
    : null;
  const isFull = () => maxResults > 0 && counts.matched >= maxResults;
  try {
    while (batches.length > 0 || (pool !== null && pool.busy() > 0)) {
      const batch = batches.pop();
      if (batch === undefined) {
        await pool!.idle();
        continue;
      }
      for (const path of batch) {
        await tools.pause();
        const over = performance.now() > deadline ? "time" : isFull() ? "results" : null;
        if (over) {
          // Batches still queued (and the rest of this one) are left unsearched.
          batches.length = 0;
          stoppedBy ??= over;
          break;
        }
        const matches = await searchFile(path, tools);
        counts.searched++;
        if (matches) {
          found.push(matches);
          counts.matched += matches.matchCount;
        }
      }
    }
  } finally {
    pool?.stop();
  }
  if (stoppedBy === null) return { files: found, complete: true };
  return {
    files: stoppedBy === "results" ? trimToBudget(found, maxResults) : found,
    complete: false,
    coverage: { stoppedBy, searched: counts.searched, listed: files.length, dirsUnread },
  };
}

/**
 * Files searched at the same time (by workers, or whole files on this thread) can pass the
 * result budget: the matches past it are dropped, so a result stopped at N lines has N.
 */
function trimToBudget(found: FileMatches[], maxResults: number): FileMatches[] {
  const kept: FileMatches[] = [];
  let left = maxResults;
  for (const file of found) {
    if (left <= 0) break;
    if (file.matchCount <= left) {
      kept.push(file);
      left -= file.matchCount;
      continue;
    }
    kept.push({ ...file, matched: file.matched.slice(0, left), matchCount: left });
    left = 0;
  }
  return kept;
}

/** Workers that take batches off the shared stack until it is empty. */
interface WorkerPool {
  /** Batches being searched by workers. */
  busy(): number;
  /** Resolves when a worker finishes or fails a batch. */
  idle(): Promise<void>;
  stop(): void;
}

/**
 * Starts workers when the worker module is on disk (it is not inside a bundle or a compiled
 * binary, which search on this thread alone). A worker that fails puts its batch back.
 */
function startWorkers(
  spec: ScanSpec,
  batches: string[][],
  found: FileMatches[],
  counts: { searched: number; matched: number },
): WorkerPool | null {
  if (WORKER_URL.protocol !== "file:") return null;
  try {
    if (!Deno.statSync(WORKER_URL).isFile) return null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable) {
      return null;
    }
    throw error;
  }
  const count = Math.min(MAX_WORKERS, Math.max(1, navigator.hardwareConcurrency - 1));
  const working = new Map<Worker, string[]>();
  let wake: () => void = () => {};
  const feed = (worker: Worker) => {
    const batch = batches.pop();
    if (batch === undefined) return;
    working.set(worker, batch);
    worker.postMessage({ type: "search", paths: batch } satisfies WorkerRequest);
  };
  const workers = Array.from({ length: count }, () => {
    const worker = new Worker(WORKER_URL, { type: "module" });
    worker.onmessage = (event: MessageEvent<WorkerReply>) => {
      found.push(...event.data.found);
      counts.searched += working.get(worker)?.length ?? 0;
      for (const file of event.data.found) counts.matched += file.matchCount;
      working.delete(worker);
      feed(worker);
      wake();
    };
    worker.onerror = (event) => {
      event.preventDefault();
      const batch = working.get(worker);
      if (batch) batches.push(batch);
      working.delete(worker);
      worker.terminate();
      wake();
    };
    worker.postMessage({ type: "start", spec } satisfies WorkerRequest);
    feed(worker);
    return worker;
  });
  return {
    busy: () => working.size,
    idle: () => new Promise<void>((resolve) => wake = resolve),
    stop: () => workers.forEach((worker) => worker.terminate()),
  };
}
