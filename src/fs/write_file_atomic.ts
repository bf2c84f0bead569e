/**
 * The one atomic file write: a temporary file in the same folder, renamed over the target, so a
 * crash or a full disk never leaves half a file and readers never see one. A leaf module: every
 * area may import it (plugins through the plugin API).
 * @module
 */
import { basename, dirname, join } from "./path.ts";
import { assertResolved } from "./_assert_resolved.ts";
import { isAccessError } from "./access_error.ts";
import { SYNC_IO_MAX_BYTES } from "./sync_io.ts";

/** Options for {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Mode bits for the result; default: the existing file's mode, else the umask's. */
  mode?: number | null;
  /**
   * `file` is a symlink-resolved path a policy judged (tools): refuse, before writing and again
   * before the rename, when a symlink has appeared on it, so the write lands where it was judged.
   */
  resolved?: boolean;
}

/**
 * Replaces `file` with `text` atomically, keeping an existing file's mode.
 * @example
 * ```ts
 * const dir = await Deno.makeTempDir();
 * await writeFileAtomic(`${dir}/a.txt`, "hello\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeFileAtomic(
  file: string,
  text: string,
  options: AtomicWriteOptions = {},
): Promise<void> {
  // Metadata calls are synchronous (microseconds, against ~70 µs apiece async, and a
  // millisecond or more when the machine is busy: an async call is a hand-off to another thread
  // and back). So is the data when it is small; a large file is written asynchronously, so the
  // event loop is not held while it is copied.
  const mode = options.mode !== undefined ? options.mode : existingMode(file);
  // The name isAtomicTemp recognises: hidden, beside the file, 8 random hex digits.
  const temp = join(dirname(file), `.${basename(file)}.${crypto.randomUUID().slice(0, 8)}.tmp`);
  if (options.resolved) assertResolved(file);
  try {
    if (text.length <= SYNC_IO_MAX_BYTES) {
      Deno.writeTextFileSync(temp, text, { createNew: true });
    } else await Deno.writeTextFile(temp, text, { createNew: true });
    // The umask may have narrowed the mode given at creation, so it is set afterwards.
    if (mode !== null) Deno.chmodSync(temp, mode & 0o7777);
    if (options.resolved) assertResolved(file);
    Deno.renameSync(temp, file);
  } catch (error) {
    // A failed cleanup must not hide why the write failed (on a read-only file system both do).
    await Deno.remove(temp).catch(() => {});
    throw isAccessError(error) ? explainUnwritable(file, error) : error;
  }
}

/**
 * Whether `name`, in `file`'s folder, is a new version of `file` that {@link writeFileAtomic}
 * was writing when its process was killed: the rename never came, so it stays beside the file.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(isAtomicTemp("/w/a.txt", ".a.txt.1f2e3d4c.tmp"), true);
 * assert.equal(isAtomicTemp("/w/a.txt", ".b.txt.1f2e3d4c.tmp"), false);
 * ```
 */
export function isAtomicTemp(file: string, name: string): boolean {
  const prefix = `.${basename(file)}.`;
  return name.startsWith(prefix) && /^[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length));
}

function existingMode(file: string): number | null {
  try {
    return Deno.statSync(file).mode;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The write failed on access: name the file the caller meant, not the temporary one. */
function explainUnwritable(file: string, error: Error): Error {
  const dir = dirname(file);
  if (error instanceof Deno.errors.NotCapable) {
    return new Deno.errors.NotCapable(
      `Cannot write "${file}": replio was started without write access to "${dir}", where ` +
        `the new version is written before it replaces the file: restart it with ` +
        `--allow-write=${dir}`,
    );
  }
  const readOnly = /os error 30|read-only/i.test(error.message);
  return new Deno.errors.PermissionDenied(
    readOnly
      ? `Cannot write "${file}": the file system is read-only here: nothing can be written in "${dir}"`
      : `Cannot write "${file}": the system refuses writes in "${dir}" (${error.message}): ` +
        `check the folder's owner and mode`,
  );
}
