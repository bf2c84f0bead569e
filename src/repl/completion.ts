/**
 * Tab completion: command names after `/`, a command's first argument (tool names after
 * `/tool` and `/help`, mode names after `/mode`) and, where the command offers them, its second
 * (session ids after `/session load`), and otherwise the path being typed (after an `@` too),
 * relative to the worktree.
 * @module
 */
import { isAbsolute, join } from "../fs/path.ts";

/** Where completions come from. */
export interface CompletionSources {
  /** Command names without the slash. */
  commands: readonly string[];
  /** Candidates for a command's first argument, or undefined when it takes none to complete. */
  argumentsOf(command: string): readonly string[] | undefined;
  /**
   * Candidates for the argument after `previous` (`/session load <Tab>`: session ids), or
   * undefined when there is nothing to complete there.
   */
  argumentsAfter?(
    command: string,
    previous: string,
  ): Promise<readonly string[] | undefined> | readonly string[] | undefined;
  /** Relative paths are listed from here. */
  worktree: string;
  /** Home directory for `~/`; null when unknown. */
  home: string | null;
}

/** Characters that end a path token: spaces, quotes and JSON punctuation. */
const TOKEN_BREAK = /[\s"'`=,{}()[\]]/;

/**
 * Completions for the text left of the cursor, as node:readline wants them: the candidates
 * and the substring they replace.
 */
export async function completeLine(
  line: string,
  sources: CompletionSources,
): Promise<[string[], string]> {
  const command = /^\/([\w-]*)$/.exec(line);
  if (command) {
    const hits = sources.commands.filter((name) => name.startsWith(command[1]!));
    return [hits.map((name) => "/" + name), line];
  }
  const argument = /^\/([\w-]+)\s+(\S*)$/.exec(line);
  const candidates = argument ? sources.argumentsOf(argument[1]!.toLowerCase()) : undefined;
  if (argument && candidates) {
    const prefix = argument[2]!;
    return [candidates.filter((c) => c.startsWith(prefix)), prefix];
  }
  const second = /^\/([\w-]+)\s+(\S+)\s+(\S*)$/.exec(line);
  const more = second
    ? await sources.argumentsAfter?.(second[1]!.toLowerCase(), second[2]!)
    : undefined;
  if (second && more) {
    const prefix = second[3]!;
    return [more.filter((c) => c.startsWith(prefix)), prefix];
  }
  let start = line.length;
  while (start > 0 && !TOKEN_BREAK.test(line[start - 1]!)) start--;
  const token = line.slice(start);
  // `@path` attaches a file: complete the path and keep the `@`.
  if (token.startsWith("@")) {
    const hits = await completePath(token.slice(1), sources);
    return [hits.map((hit) => "@" + hit), token];
  }
  return [await completePath(token, sources), token];
}

/** Entries of the token's directory that start with its last segment; folders end in `/`. */
async function completePath(token: string, sources: CompletionSources): Promise<string[]> {
  const slash = token.lastIndexOf("/");
  const dirPart = slash < 0 ? "" : token.slice(0, slash + 1);
  const prefix = token.slice(slash + 1);
  let dir: string;
  if (dirPart.startsWith("~/")) {
    if (sources.home === null) return [];
    dir = join(sources.home, dirPart.slice(2));
  } else {
    dir = isAbsolute(dirPart) ? dirPart : join(sources.worktree, dirPart);
  }
  const hits: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.startsWith(prefix)) continue;
      // Hidden entries only when asked for, as shells do.
      if (entry.name.startsWith(".") && !prefix.startsWith(".")) continue;
      const isDir = entry.isDirectory ||
        (entry.isSymlink && await isDirectory(join(dir, entry.name)));
      hits.push(dirPart + entry.name + (isDir ? "/" : ""));
    }
  } catch (error) {
    // A directory that is missing or unreadable simply has nothing to offer.
    const unreadable = [
      Deno.errors.NotFound,
      Deno.errors.NotADirectory,
      Deno.errors.PermissionDenied,
      Deno.errors.NotCapable,
    ].some((kind) => error instanceof kind);
    if (unreadable) return [];
    throw error;
  }
  return hits.sort();
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
