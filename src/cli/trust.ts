/**
 * `replio trust [PATH] | --list | --remove PATH`: the folders whose own `.replio/` settings
 * load, kept in `trusted_folders` of the global config (docs/security.md, "Folder trust").
 * @module
 */
import { resolve } from "../fs/path.ts";
import {
  addTrustedFolder,
  configPaths,
  readTrustedFolders,
  removeTrustedFolder,
} from "../config/mod.ts";
import { EXIT, UsageError } from "./errors.ts";

/** Options of `replio trust`. */
export interface TrustCommandOptions {
  list?: boolean;
  remove?: string;
}

/** Adds, lists or removes a trusted folder; exit 0, or 1 when `--remove` finds no such entry. */
export async function runTrustCommand(
  path: string | undefined,
  options: TrustCommandOptions,
): Promise<number> {
  const file = configPaths(Deno.cwd()).global;
  if (file === null) {
    throw new UsageError(
      "Cannot trust folders: neither XDG_CONFIG_HOME nor HOME can be read, so there is no global config: run replio with --allow-env",
    );
  }
  if ((options.list ? 1 : 0) + (options.remove !== undefined ? 1 : 0) + (path ? 1 : 0) > 1) {
    throw new UsageError(
      "Cannot run trust: give one of PATH, --list or --remove PATH: see replio trust --help",
    );
  }
  if (options.list) {
    const folders = await readTrustedFolders(file);
    if (folders.length === 0) {
      // On stderr: a script reading the list on stdout still gets an empty one.
      await writeErr(
        `replio: no folders are trusted yet (trusted_folders in ${file}): ` +
          "run replio trust in a folder to trust it\n",
      );
      return EXIT.ok;
    }
    await writeOut(folders.map((f) => `${f}\n`).join(""));
    return EXIT.ok;
  }
  if (options.remove !== undefined) {
    const given = resolve(options.remove);
    // The folder may be gone already: its entry must still be removable as written.
    const real = await Deno.realPath(given).catch((error) => {
      if (error instanceof Deno.errors.NotFound) return given;
      throw error;
    });
    const removed = await removeTrustedFolder(file, [given, real]);
    if (removed.length === 0) {
      await writeErr(
        `replio: "${given}" is not in trusted_folders of ${file}: see replio trust --list\n`,
      );
      return EXIT.failed;
    }
    await writeErr(`replio: no longer trusted: ${removed.join(", ")}\n`);
    return EXIT.ok;
  }
  // The real path is stored: a worktree is matched by its real path, symlinks resolved.
  const folder = await realFolder(path ?? Deno.cwd());
  const added = await addTrustedFolder(file, folder);
  await writeErr(
    added
      ? `replio: trusted ${folder}: its .replio/ settings load from now on (in ${file})\n`
      : `replio: ${folder} is trusted already\n`,
  );
  return EXIT.ok;
}

async function realFolder(path: string): Promise<string> {
  const target = resolve(path);
  try {
    const real = await Deno.realPath(target);
    if ((await Deno.stat(real)).isDirectory) return real;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  throw new UsageError(`Cannot trust "${target}": no such folder: pass an existing folder`);
}

async function writeOut(text: string): Promise<void> {
  await Deno.stdout.write(new TextEncoder().encode(text));
}

async function writeErr(text: string): Promise<void> {
  await Deno.stderr.write(new TextEncoder().encode(text));
}
