/**
 * Appending without following a symlink: the file a tool appends to is the one the policy
 * judged, never a link's target that appeared (or dangled) at its name. A leaf module like
 * {@link ./write_file_atomic.ts}.
 * @module
 */
import { assertResolved, lstatOrNull } from "./_assert_resolved.ts";

/**
 * Appends `text` to `file` (a symlink-resolved path), creating it when missing; says which.
 * Throws when a symlink stands at the name when it is opened, before a byte is written.
 * @example
 * ```ts
 * const dir = await Deno.realPath(await Deno.makeTempDir());
 * await appendFileNoFollow(`${dir}/log.txt`, "one\n"); // "created"
 * await appendFileNoFollow(`${dir}/log.txt`, "two\n"); // "appended"
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function appendFileNoFollow(
  file: string,
  text: string,
): Promise<"created" | "appended"> {
  assertResolved(file);
  const before = lstatOrNull(file);
  // createNew is O_EXCL: it fails on any link, dangling ones included, instead of following it.
  const handle = before === null
    ? await Deno.open(file, { write: true, createNew: true })
    : await Deno.open(file, { append: true });
  try {
    // open() follows a link swapped in after the lstat; the opened file must be the one named.
    const [opened, named] = await Promise.all([handle.stat(), Deno.lstat(file)]);
    if (named.isSymlink || opened.ino !== named.ino || opened.dev !== named.dev) {
      throw new TypeError(
        `Cannot append to "${file}": it was replaced by a symlink while being opened: ` +
          `nothing was written: check the path and call again`,
      );
    }
    const bytes = new TextEncoder().encode(text);
    for (let at = 0; at < bytes.length;) at += await handle.write(bytes.subarray(at));
  } finally {
    handle.close();
  }
  return before === null ? "created" : "appended";
}
