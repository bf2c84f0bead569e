/**
 * file_write: creates, overwrites (atomically, keeping permissions) or appends to a file, with a
 * preview or diff as its status.
 * @module
 */
import {
  appendFileNoFollow,
  dirname,
  readTextIfExists,
  type Static,
  type ToolArgs,
  type ToolContext,
  type ToolSpec,
  Type,
  writeFileAtomic,
} from "../../src/plugins/api.ts";
import { isMissing, rethrowDenied } from "./_path_errors.ts";
import { displayPath } from "./_display.ts";
import DESCRIPTION from "./file_write.md" with { type: "text" };

/** Lines of new text or diff in the status preview: a glance, not the whole file. */
const PREVIEW_MAX_LINES = 40;
/** Context lines around each change in the preview diff, as `diff -u` shows. */
const PREVIEW_CONTEXT_LINES = 3;

const parameters = Type.Object({
  path: Type.String({ description: "File to write, relative to the worktree" }),
  content: Type.String({ description: "The text to write, line breaks included" }),
  mode: Type.Optional(Type.Union([Type.Literal("write"), Type.Literal("append")], {
    default: "write",
    description: "write creates or replaces the file; append adds to its end",
  })),
});

type WriteArgs = Static<typeof parameters>;

/** file_write's registration: a write gated by `tool_permission.edit`, previewed as a diff. */
export const fileWriteSpec = {
  name: "file_write",
  description: DESCRIPTION,
  short: "Create, overwrite or append to a file",
  parameters,
  category: "write",
  permission: "edit",
  deno: { read: true, write: true },
  pathArg: "path",
  keyArg: "path",
  aliases: ["write_file", "write"],
  paramAliases: { file_path: "path", text: "content" },
  status: previewWrite,
} satisfies ToolSpec<typeof parameters>;

/** Writes or appends the content and says what happened, with line and character counts. */
export async function writeFile(args: WriteArgs, ctx: ToolContext): Promise<string> {
  const file = await ctx.resolvePath(args.path, "write");
  const shown = displayPath(file, ctx.worktree);
  const existing = statOrNull(file);
  if (existing?.isDirectory) {
    throw new TypeError(`Cannot write "${shown}": it is a directory: give a file path inside it`);
  }
  createParents(file, shown);
  ctx.signal.throwIfAborted();
  const counts = describeText(args.content);
  try {
    if (args.mode === "append") {
      const done = await appendFileNoFollow(file, args.content);
      return done === "appended"
        ? `Appended ${counts} to ${shown}`
        : `Created ${shown} (${counts})`;
    }
    await writeFileAtomic(file, args.content, { mode: existing?.mode ?? null, resolved: true });
  } catch (error) {
    rethrowDenied(error, `Cannot write "${shown}"`);
  }
  return `${existing ? "Overwrote" : "Created"} ${shown} (${counts})`;
}

/** The status block: the path, then the new text (new file, append) or a diff (overwrite). */
async function previewWrite(args: ToolArgs, ctx: ToolContext): Promise<string> {
  const { path, content, mode } = args as WriteArgs;
  const file = await ctx.resolvePath(path, "read");
  const before = await readTextIfExists(file);
  if (before === null || mode === "append") {
    const lines = splitLines(content);
    return [path, ...capPreview(lines.map((line) => `+${line}`))].join("\n");
  }
  if (before === content) return `${path}\n(no changes)`;
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch(path, path, before, content, "", "", {
    context: PREVIEW_CONTEXT_LINES,
  });
  const diff = patch.hunks.flatMap((hunk) => [
    `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...hunk.lines,
  ]);
  return [path, ...capPreview(diff)].join("\n");
}

function capPreview(lines: string[]): string[] {
  const more = lines.length - PREVIEW_MAX_LINES;
  return more > 0 ? [...lines.slice(0, PREVIEW_MAX_LINES), `... (${more} more lines)`] : lines;
}

/** Lines of a text as an editor counts them: a final line break ends a line, not starts one. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  return text.replace(/\r?\n$/, "").split(/\r?\n/);
}

/** `3 lines, 42 chars` */
function describeText(text: string): string {
  const n = splitLines(text).length;
  return `${n} ${n === 1 ? "line" : "lines"}, ${text.length} ${
    text.length === 1 ? "char" : "chars"
  }`;
}

/** Synchronous, as is {@link createParents}: metadata calls of microseconds (docs/decisions.md). */
function statOrNull(file: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(file);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

function createParents(file: string, shown: string): void {
  try {
    Deno.mkdirSync(dirname(file), { recursive: true });
  } catch (error) {
    if (
      !(error instanceof Deno.errors.AlreadyExists) && !(error instanceof Deno.errors.NotADirectory)
    ) {
      throw error;
    }
    throw new TypeError(
      `Cannot write "${shown}": a part of its folder path is a file: choose another path`,
    );
  }
}
