/**
 * glob's ripgrep engine: `rg --files` lists the files the built-in walk would list (the flags
 * of _ripgrep.ts), narrowed to plausible names where the pattern allows, and the pattern itself
 * decides, matched here exactly as the built-in engine matches it.
 *
 * The pattern is not handed to ripgrep's `--glob`: such a glob overrides ignore files, so `*.log`
 * would list the `.log` files `.gitignore` excludes. A file type (`--type-add`) is applied after
 * the ignore files, but sees only a file's name, and its syntax is not picomatch's: it only
 * narrows what ripgrep prints to names the pattern could match.
 * @module
 */
import { join } from "../../src/plugins/api.ts";
import { plural } from "./_budget_note.ts";
import type { GlobOutcome, GlobRequest } from "./_glob_types.ts";
import {
  mayRunRipgrep,
  mtimeOf,
  readOutput,
  ripgrepFilterArgs,
  type RipgrepUnavailable,
} from "./_ripgrep.ts";

/** The file type glob defines for one search; no type ripgrep ships has this name. */
const NAME_TYPE = "replioglob";
/** Name globs past this many (braces multiplied out) cost ripgrep more than they save. */
const MAX_NAME_GLOBS = 32;
/** Characters that mean themselves both to picomatch and to ripgrep's globs. */
const PLAIN = /^[\p{L}\p{N}._\- ]$/u;
/** A character class whose members are all plain, such as `[a-z]` or `[!._]`. */
const PLAIN_CLASS = /^[!^]?[\p{L}\p{N}._\- ]+$/u;

/** Lists the files matching the request's pattern with `rg`, or says why it could not. */
export async function globRipgrep(request: GlobRequest): Promise<GlobOutcome | RipgrepUnavailable> {
  if (!mayRunRipgrep()) return "missing";
  const files: GlobOutcome["files"] = [];
  // A killed ripgrep reports nothing of what it had looked at: only the matches are known.
  const stopped = (stoppedBy: "time" | "results"): GlobOutcome => ({
    files,
    stoppedBy,
    coverage: `ripgrep was stopped mid-search with ${plural(files.length, "matching file")} ` +
      "so far; how many files it had looked at is not known",
  });
  if (performance.now() >= request.deadline) return stopped("time");
  const args = ["--files", "--null", ...ripgrepFilterArgs()];
  const names = nameGlobs(request.pattern);
  if (names !== null) {
    for (const name of names) args.push("--type-add", `${NAME_TYPE}:${name}`);
    args.push("--type", NAME_TYPE);
  }
  // Ends ripgrep early: at the deadline, or once enough files matched.
  const stop = new AbortController();
  let stoppedBy: "time" | "results" = "time";
  const timer = setTimeout(() => stop.abort(), request.deadline - performance.now());
  let child: Deno.ChildProcess;
  try {
    // With no path ripgrep lists the working directory, printing paths relative to it.
    child = new Deno.Command("rg", {
      args,
      cwd: request.root,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.any([request.signal, stop.signal]),
    }).spawn();
  } catch (error) {
    clearTimeout(timer);
    if (error instanceof Deno.errors.NotFound) return "missing";
    throw error;
  }
  try {
    let isEmpty = true;
    let rest = "";
    for await (const text of readOutput(child.stdout)) {
      isEmpty = false;
      // Past the result budget the output is only drained: what ripgrep printed after the
      // budget was reached is not counted as found.
      if (stoppedBy === "results") continue;
      const listed = (rest + text).split("\0");
      rest = listed.pop()!;
      for (const rel of listed) {
        if (!request.isMatch(rel)) continue;
        const path = join(request.root, rel);
        const mtime = mtimeOf(path);
        if (mtime === null) continue; // removed meanwhile
        files.push({ path, mtime });
        if (files.length === request.maxResults) {
          stoppedBy = "results";
          stop.abort();
          break;
        }
      }
    }
    const status = await child.status;
    request.signal.throwIfAborted();
    // Exit 2 with no output is an error about the flags (an old `rg`); exit 2 with output
    // means some folders could not be read, and the rest stands.
    if (status.code === 2 && isEmpty && !stop.signal.aborted) return "unsupported";
    return stop.signal.aborted ? stopped(stoppedBy) : { files, stoppedBy: null, coverage: "" };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Globs for the file names a pattern can match, in the syntax of ripgrep's `--type-add`, or
 * null when the pattern says nothing about names that both dialects read alike. They may
 * match more names than the pattern (`?` and `[…]` become `*`), never fewer.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.deepEqual(nameGlobs("src/**\/*_test.{ts,tsx}"), ["*_test.ts", "*_test.tsx"]);
 * assert.deepEqual(nameGlobs("data_[0-9]?.csv"), ["data_*.csv"]);
 * assert.equal(nameGlobs("src/**"), null);
 * assert.equal(nameGlobs("*.@(js|ts)"), null);
 * ```
 */
export function nameGlobs(pattern: string): string[] | null {
  // A leading "!" negates the whole pattern in picomatch.
  if (pattern.replace(/^\.?\//, "").startsWith("!")) return null;
  const name = pattern.slice(pattern.lastIndexOf("/") + 1);
  if (name.includes("**")) return null;
  // A brace or class opened before the last "/" leaves its closing bracket unmatched here,
  // which is not plain: such a pattern is not narrowed.
  const globs = nameAlternatives([...name]);
  if (globs === null || globs.length > MAX_NAME_GLOBS) return null;
  const unique = [...new Set(globs.map((glob) => glob.replace(/\*+/g, "*")))];
  // "" (a pattern ending in "/") names nothing; "*" names everything.
  return unique.includes("") || unique.includes("*") ? null : unique;
}

/** The `*`-and-literal globs one name pattern (as code points) spells, or null. */
function nameAlternatives(chars: readonly string[]): string[] | null {
  let globs = [""];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    let next: string[];
    if (char === "*" || char === "?") {
      next = ["*"];
    } else if (char === "[") {
      const end = chars.indexOf("]", i + 1);
      if (end === -1 || !PLAIN_CLASS.test(chars.slice(i + 1, end).join(""))) return null;
      next = ["*"];
      i = end;
    } else if (char === "{") {
      const end = chars.indexOf("}", i + 1);
      const body = chars.slice(i + 1, end);
      // Only one level of braces with a choice in it: `{a}` and `{1..3}` mean other things.
      if (end === -1 || body.includes("{") || !body.includes(",")) return null;
      next = [];
      for (const part of body.join("").split(",")) {
        const alternatives = nameAlternatives([...part]);
        if (alternatives === null) return null;
        next.push(...alternatives);
      }
      i = end;
    } else if (PLAIN.test(char)) {
      next = [char];
    } else {
      return null;
    }
    globs = globs.flatMap((glob) => next.map((more) => glob + more));
    if (globs.length > MAX_NAME_GLOBS) return null;
  }
  return globs;
}
