/**
 * grep's ripgrep engine: `rg --json` with the flags that make it walk, ignore and decode files
 * exactly as the built-in engine does, parsed into the same matches.
 * @module
 */
import { dirname, resolve } from "node:path";
import {
  type FileMatches,
  MAX_STORED_MATCHES,
  type SearchOutcome,
  type SearchRequest,
} from "./_grep_types.ts";
import { toRustPattern } from "./_pattern.ts";
import { SKIPPED_DIRS } from "./_walk.ts";

/**
 * Why ripgrep could not run this search, and the built-in engine takes it over: `rg` is not
 * there, or it refused the pattern (look-around, backreferences) or its flags (an old `rg`).
 */
export type RipgrepUnavailable = "missing" | "unsupported";

/** A `--json` message's path or line: UTF-8 text, or base64 bytes when it is not UTF-8. */
interface RgData {
  text?: string;
  bytes?: string;
}

/**
 * Searches with `rg`, or says why it could not.
 */
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
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(),
    Math.max(0, request.deadline - performance.now()),
  );
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
    const { files, isFinished } = await parseJsonLines(child.stdout, cwd, request.context);
    const status = await child.status;
    request.signal.throwIfAborted();
    // Exit 2 before any search (no summary) is an error about the pattern or the flags; exit 2
    // after one means some files could not be read, and the rest stands.
    if (status.code === 2 && !isFinished && !timeout.signal.aborted) return "unsupported";
    return { files, complete: !timeout.signal.aborted };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Flags that line ripgrep up with the built-in engine: hidden files searched, `.gitignore`
 * honoured outside git repositories too, no global gitignore or config file, bytes taken as
 * they are (no BOM sniffing), and the same directories skipped.
 */
function ripgrepArgs(request: SearchRequest, pattern: string): string[] {
  const args = [
    "--json",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "--encoding",
    "none",
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
 * Reads `rg --json` output. Messages past a file's storage cap are only counted, by their
 * prefix, since ripgrep prints one file's messages together and parsing them would dominate.
 */
async function parseJsonLines(
  stdout: ReadableStream<Uint8Array>,
  cwd: string,
  context: number,
): Promise<{ files: FileMatches[]; isFinished: boolean }> {
  const files: FileMatches[] = [];
  let current: FileMatches | null = null;
  let isFinished = false;
  const take = (line: string) => {
    if (line.startsWith('{"type":"match"')) {
      if (current === null) return;
      current.matchCount++;
      if (current.matched.length >= MAX_STORED_MATCHES) return;
      const data = JSON.parse(line).data;
      current.matched.push(data.line_number);
      current.lines.set(data.line_number, lineText(data.lines));
    } else if (line.startsWith('{"type":"context"')) {
      if (current === null) return;
      const data = JSON.parse(line).data;
      const lastStored = current.matched.at(-1) ?? 0;
      if (current.matched.length < MAX_STORED_MATCHES || data.line_number <= lastStored + context) {
        current.lines.set(data.line_number, lineText(data.lines));
      }
    } else if (line.startsWith('{"type":"begin"')) {
      const data = JSON.parse(line).data;
      current = {
        path: resolve(cwd, decodeData(data.path)),
        lines: new Map(),
        matched: [],
        matchCount: 0,
      };
    } else if (line.startsWith('{"type":"end"')) {
      // ripgrep stops at a NUL byte and says so here; such a file is dropped, as the built-in
      // engine drops it.
      if (
        current !== null && current.matchCount > 0 && JSON.parse(line).data.binary_offset === null
      ) {
        files.push(current);
      }
      current = null;
    } else if (line.startsWith('{"type":"summary"') || line.endsWith('"type":"summary"}')) {
      // The summary ends a run that searched; its keys come in no fixed order.
      isFinished = true;
    }
  };
  let rest = "";
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stdout) {
      const text = rest + decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      rest = lines.pop()!;
      for (const line of lines) take(line);
    }
  } catch (error) {
    // The stream errors when the process is killed at the deadline; what was read stands.
    if (
      !(error instanceof Deno.errors.Interrupted) && !(error instanceof Deno.errors.BadResource)
    ) {
      throw error;
    }
  }
  take(rest + decoder.decode());
  return { files, isFinished };
}

function lineText(data: RgData): string {
  return decodeData(data).replace(/\n$/, "");
}

function decodeData(data: RgData): string {
  if (data.text !== undefined) return data.text;
  const binary = atob(data.bytes ?? "");
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}
