/**
 * grep's ripgrep engine: `rg` run with the flags that make it walk, ignore and decode files
 * exactly as the built-in engine does, its output parsed into the same matches.
 * @module
 */
import { dirname, resolve } from "../../src/plugins/api.ts";
import {
  type FileMatches,
  MAX_STORED_MATCHES,
  type SearchOutcome,
  type SearchRequest,
} from "./_grep_types.ts";
import { compileGlob } from "./_match_glob.ts";
import { toRustPattern } from "./_pattern.ts";
import {
  listedPath,
  mayRunRipgrep,
  mtimeOf,
  readOutput,
  ripgrepFilterArgs,
  type RipgrepUnavailable,
  spawnRipgrep,
} from "./_ripgrep.ts";

/** Longest wait past the deadline for the file count to finish, so its number is exact. */
const COUNT_GRACE_MS = 50;

/** Searches with `rg`, or says why it could not. */
export async function searchRipgrep(
  request: SearchRequest,
): Promise<SearchOutcome | RipgrepUnavailable> {
  if (!mayRunRipgrep()) return "missing";
  // Patterns only JavaScript's legacy mode reads, or with no Rust equivalent, stay built-in.
  const pattern = request.regex.flags.includes("u") ? toRustPattern(request.regex.source) : null;
  if (pattern === null) return "unsupported";
  const cwd = request.isFile ? dirname(request.target) : request.target;
  const accepts = await globFilter(request);
  const budgetMs = Math.max(0, request.deadline - performance.now());
  // Ends ripgrep early: at the deadline, or once enough lines matched.
  const timeout = new AbortController();
  let stoppedBy: "time" | "results" = "time";
  const timer = setTimeout(
    () => timeout.abort(),
    Math.max(0, request.deadline - performance.now()),
  );
  const onFull = () => {
    if (timeout.signal.aborted) return;
    stoppedBy = "results";
    timeout.abort();
  };
  // A search still running at half its time budget may be stopped: from then on the files to
  // search are counted beside it, so a stopped search can say how many there were.
  let counter: FileCounter | null = null;
  const countTimer = request.isFile ? undefined : setTimeout(
    () => counter = countFiles(request, cwd, accepts),
    Math.max(0, (request.deadline - performance.now()) / 2),
  );
  const child = spawnRipgrep(
    ripgrepArgs(request, pattern),
    cwd,
    AbortSignal.any([request.signal, timeout.signal]),
  );
  if (child === "missing") {
    clearTimeout(timer);
    clearTimeout(countTimer);
    return "missing";
  }
  try {
    const limit = { max: request.maxResults, onFull };
    const { files, isEmpty } = await parseOutput(child.stdout, {
      cwd,
      context: request.context,
      accepts,
      limit,
    });
    const status = await child.status;
    request.signal.throwIfAborted();
    // Exit 2 with no output is an error about the pattern or the flags; exit 2 with output
    // means some files could not be read, and the rest stands.
    if (status.code === 2 && isEmpty && !timeout.signal.aborted) return "unsupported";
    if (!timeout.signal.aborted) return { files, complete: true };
    // A killed ripgrep reports nothing of what it had read: only the matches are known, and
    // how many files there were to search when the count got that far.
    const grace = Math.min(COUNT_GRACE_MS, budgetMs * 0.1);
    const total = stoppedBy === "time" ? await (counter as FileCounter | null)?.stop(grace) : null;
    return {
      files,
      complete: false,
      coverage: {
        stoppedBy,
        searched: null,
        listed: total?.count ?? 0,
        dirsUnread: 0,
        ...(total ? { total } : {}),
      },
    };
  } finally {
    clearTimeout(timer);
    clearTimeout(countTimer);
    await (counter as FileCounter | null)?.stop();
  }
}

/** Files counted by `rg --files`, and whether the count finished. */
export interface FileCount {
  count: number;
  complete: boolean;
}

/** A running count of the files a search covers. */
interface FileCounter {
  /**
   * Ends the count, after letting it finish for up to `graceMs`, and returns what it reached.
   */
  stop(graceMs?: number): Promise<FileCount>;
}

/** Counts the files ripgrep would search, with the same filters, as `rg --files` lists them. */
function countFiles(
  request: SearchRequest,
  cwd: string,
  accepts: (name: string) => boolean,
): FileCounter {
  const kill = new AbortController();
  let count = 0;
  let complete = false;
  const done = (async () => {
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command("rg", {
        args: [...filterArgs(request), "--files", "--null", "--", "."],
        cwd,
        stdin: "null",
        stdout: "piped",
        stderr: "null",
        signal: AbortSignal.any([request.signal, kill.signal]),
      }).spawn();
    } catch {
      return; // no count: the note says less
    }
    try {
      let rest = "";
      for await (const text of readOutput(child.stdout)) {
        const names = (rest + text).split("\0");
        rest = names.pop()!;
        for (const name of names) if (accepts(name)) count++;
      }
      // The end of the list, unless the kill cut it short.
      complete = !kill.signal.aborted;
    } catch {
      // killed mid-count: what was counted stands, as a lower bound
    }
    if ((await child.status).code !== 0 && !kill.signal.aborted) complete = false;
  })();
  let stopped: Promise<FileCount> | null = null;
  return {
    stop: (graceMs = 0) =>
      stopped ??= (async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        if (graceMs > 0) {
          await Promise.race([
            done,
            new Promise((resolve) => timer = setTimeout(resolve, graceMs)),
          ]);
          clearTimeout(timer);
        }
        kill.abort();
        await done;
        return { count, complete };
      })(),
  };
}

/**
 * Flags that line ripgrep up with the built-in engine: files chosen as it chooses them
 * ({@link ripgrepFilterArgs}), bytes taken as they are (no BOM sniffing). Output is one line per
 * match or context line, `path NUL number : text` (`-` for context): several times smaller
 * and cheaper to read than `--json`.
 */
function ripgrepArgs(request: SearchRequest, pattern: string): string[] {
  const args = [
    ...filterArgs(request),
    "--encoding",
    "none",
    "--null",
    "--with-filename",
    "--line-number",
    "--no-heading",
    "--color",
    "never",
    request.ignoreCase ? "--ignore-case" : "--case-sensitive",
  ];
  if (request.context > 0) args.push("--context", String(request.context));
  args.push("--regexp", pattern, "--", request.isFile ? request.target : ".");
  return args;
}

/**
 * Which files ripgrep looks at: the search and the file count ({@link countFiles}) share them.
 * A `glob` only narrows them to names it could match; {@link globFilter} decides.
 */
function filterArgs(request: SearchRequest): string[] {
  return ripgrepFilterArgs(
    request.glob !== undefined && !request.isFile ? request.glob : undefined,
  );
}

/**
 * Whether a path ripgrep printed (relative to its working directory, which is the target, as
 * `./a/b.ts`) is one the request's glob takes, matched as the built-in engine matches it.
 */
async function globFilter(request: SearchRequest): Promise<(name: string) => boolean> {
  if (request.glob === undefined || request.isFile) return () => true;
  const isMatch = await compileGlob(request.glob);
  return (name) => isMatch(listedPath(name));
}

/**
 * Reads ripgrep's output as it comes. ripgrep prints each file's lines together, so a file
 * ends where the next begins; lines past a file's storage cap are only counted. A line with
 * no NUL is a `--` between groups or a note that the file turned out to be binary (a NUL past
 * its first match), and such a file is dropped, as the built-in engine drops it.
 */
async function parseOutput(
  stdout: ReadableStream<Uint8Array>,
  { cwd, context, accepts, limit }: {
    cwd: string;
    context: number;
    /** Files the glob leaves out are skipped: their lines neither shown nor counted. */
    accepts: (name: string) => boolean;
    limit: { max: number; onFull: () => void };
  },
): Promise<{ files: FileMatches[]; isEmpty: boolean }> {
  const files: FileMatches[] = [];
  let matchedLines = 0;
  const binary = new Set<FileMatches>();
  let current: FileMatches | null = null;
  let currentName = "";
  let isEmpty = true;
  const take = (line: string) => {
    const nul = line.indexOf("\0");
    if (nul === -1) {
      if (current !== null && line.startsWith(`${currentName}: `)) binary.add(current);
      return;
    }
    const name = line.slice(0, nul);
    if (name !== currentName && !accepts(name)) return;
    let at = nul + 1;
    while (line.charCodeAt(at) >= 48 && line.charCodeAt(at) <= 57) at++;
    // Past the result budget only the context after the last match is still taken: what
    // ripgrep printed before it was stopped is not counted as found.
    const isFull = limit.max > 0 && matchedLines >= limit.max;
    if (isFull && (name !== currentName || line[at] === ":")) return;
    if (current === null || name !== currentName) {
      const path = resolve(cwd, name);
      const mtime = mtimeOf(path);
      current = { path, lines: new Map(), matched: [], matchCount: 0 };
      if (mtime !== null) current.mtime = mtime;
      currentName = name;
      files.push(current);
    }
    const number = Number(line.slice(nul + 1, at));
    const text = line.slice(at + 1);
    if (line[at] === ":") {
      current.matchCount++;
      if (++matchedLines === limit.max) limit.onFull();
      if (current.matched.length >= MAX_STORED_MATCHES) return;
      current.matched.push(number);
      current.lines.set(number, text);
    } else if (
      current.matched.length < MAX_STORED_MATCHES || number <= current.matched.at(-1)! + context
    ) {
      current.lines.set(number, text);
    }
  };
  let rest = "";
  for await (const text of readOutput(stdout)) {
    isEmpty = false;
    const lines = (rest + text).split("\n");
    rest = lines.pop()!;
    for (const line of lines) take(line);
  }
  // Output ends with a line break; anything after the last one was cut off by a kill.
  return { files: files.filter((f) => f.matchCount > 0 && !binary.has(f)), isEmpty };
}
