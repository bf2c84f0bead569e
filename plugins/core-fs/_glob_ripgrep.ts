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
  listedPath,
  mayRunRipgrep,
  readOutput,
  ripgrepFilterArgs,
  type RipgrepUnavailable,
  spawnRipgrep,
} from "./_ripgrep.ts";

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
  // Given ".", ripgrep finds the first files sooner (3 ms of 36 on a 1M-file tree, 30 runs)
  // than with no path, and prints "./" before each path.
  const args = ["--files", "--null", ...ripgrepFilterArgs(request.pattern), "--", "."];
  // Ends ripgrep early: at the deadline, or once enough files matched.
  const stop = new AbortController();
  let stoppedBy: "time" | "results" = "time";
  const timer = setTimeout(() => stop.abort(), request.deadline - performance.now());
  const child = spawnRipgrep(args, request.root, AbortSignal.any([request.signal, stop.signal]));
  if (child === "missing") {
    clearTimeout(timer);
    return "missing";
  }
  try {
    let isEmpty = true;
    let rest = "";
    // The files are not looked at (for their age) while ripgrep runs: its threads take both
    // cores, and each stat here then waits for one, up to a millisecond (issue #26).
    read: for await (const text of readOutput(child.stdout)) {
      isEmpty = false;
      const listed = (rest + text).split("\0");
      rest = listed.pop()!;
      for (const printed of listed) {
        const rel = listedPath(printed);
        if (!request.isMatch(rel)) continue;
        files.push({ path: join(request.root, rel) });
        if (files.length === request.maxResults) {
          // ripgrep is killed and the rest of its output left unread (leaving the loop cancels
          // the pipe): what it printed after the budget is not counted as found.
          stoppedBy = "results";
          stop.abort();
          break read;
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
