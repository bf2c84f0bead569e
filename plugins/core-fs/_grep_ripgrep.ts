/**
 * grep's ripgrep engine: `rg` run with the flags that make it walk, ignore and decode files
 * exactly as the built-in engine does, its output parsed into the same matches.
 * @module
 */
import { dirname, resolve } from "node:path";
import {
  type FileMatches,
  MAX_STORED_MATCHES,
  type SearchOutcome,
  type SearchRequest,
} from "./_grep_types.ts";
import { isMissing } from "./_path_errors.ts";
import { toRustPattern } from "./_pattern.ts";
import { SKIPPED_DIRS } from "./_walk.ts";

/** Bytes of output read at a time. */
const READ_BYTES = 1 << 20;

/**
 * Why ripgrep could not run this search, and the built-in engine takes it over: `rg` is not
 * there, or it refused the pattern (look-around, backreferences) or its flags (an old `rg`).
 */
export type RipgrepUnavailable = "missing" | "unsupported";

/** Searches with `rg`, or says why it could not. */
export async function searchRipgrep(
  request: SearchRequest,
): Promise<SearchOutcome | RipgrepUnavailable> {
  if (Deno.permissions.querySync({ name: "run", command: "rg" }).state !== "granted") {
    return "missing";
  }
  // Patterns only JavaScript's legacy mode reads, or with no Rust equivalent, stay built-in.
  const pattern = request.regex.flags.includes("u") ? toRustPattern(request.regex.source) : null;
  if (pattern === null) return "unsupported";
  const cwd = request.isFile ? dirname(request.target) : request.target;
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
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("rg", {
      args: ripgrepArgs(request, pattern),
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.any([request.signal, timeout.signal]),
    }).spawn();
  } catch (error) {
    clearTimeout(timer);
    if (error instanceof Deno.errors.NotFound) return "missing";
    throw error;
  }
  try {
    const limit = { max: request.maxResults, onFull };
    const { files, isEmpty } = await parseOutput(child.stdout, cwd, request.context, limit);
    const status = await child.status;
    request.signal.throwIfAborted();
    // Exit 2 with no output is an error about the pattern or the flags; exit 2 with output
    // means some files could not be read, and the rest stands.
    if (status.code === 2 && isEmpty && !timeout.signal.aborted) return "unsupported";
    if (!timeout.signal.aborted) return { files, complete: true };
    // A killed ripgrep reports nothing of what it had read: only the matches are known.
    return {
      files,
      complete: false,
      coverage: { stoppedBy, searched: null, listed: 0, dirsUnread: 0 },
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Flags that line ripgrep up with the built-in engine: hidden files searched, `.gitignore`
 * honoured outside git repositories too, no global gitignore or config file, bytes taken as
 * they are (no BOM sniffing), and the same directories skipped. Output is one line per
 * match or context line, `path NUL number : text` (`-` for context): several times smaller
 * and cheaper to read than `--json`.
 */
function ripgrepArgs(request: SearchRequest, pattern: string): string[] {
  const args = [
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
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
  // Globs are matched against paths relative to the working directory, which is the target.
  if (request.glob !== undefined && !request.isFile) args.push("--glob", request.glob);
  for (const dir of SKIPPED_DIRS) args.push("--glob", `!${dir}/`);
  args.push("--regexp", pattern, "--", request.isFile ? request.target : ".");
  return args;
}

/**
 * Reads ripgrep's output as it comes. ripgrep prints each file's lines together, so a file
 * ends where the next begins; lines past a file's storage cap are only counted. A line with
 * no NUL is a `--` between groups or a note that the file turned out to be binary (a NUL past
 * its first match), and such a file is dropped, as the built-in engine drops it.
 */
async function parseOutput(
  stdout: ReadableStream<Uint8Array>,
  cwd: string,
  context: number,
  limit: { max: number; onFull: () => void },
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
  const decoder = new TextDecoder();
  // A reader with a large buffer of its own takes what the pipe holds in few reads; the
  // default one hands over many small chunks, each costly in the stream machinery.
  const reader = stdout.getReader({ mode: "byob" });
  let buffer = new ArrayBuffer(READ_BYTES);
  try {
    while (true) {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      if (done || value === undefined) break;
      isEmpty = false;
      const lines = (rest + decoder.decode(value, { stream: true })).split("\n");
      rest = lines.pop()!;
      for (const line of lines) take(line);
      buffer = value.buffer as ArrayBuffer;
    }
  } catch (error) {
    // The stream errors when the process is killed at the deadline; what was read stands.
    if (
      !(error instanceof Deno.errors.Interrupted) && !(error instanceof Deno.errors.BadResource)
    ) {
      throw error;
    }
  }
  // Output ends with a line break; anything after the last one was cut off by a kill.
  return { files: files.filter((f) => f.matchCount > 0 && !binary.has(f)), isEmpty };
}

/**
 * A file's modification time, read while ripgrep is still searching so that the sort after it
 * has nothing left to stat; null when the file is gone (the sort then drops it).
 */
function mtimeOf(path: string): number | null {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? 0;
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}
