/**
 * Edits `trusted_folders` in the global config file for `replio trust` and the REPL's trust
 * question, through the same editing as `replio config set`: comments kept, atomic write.
 * @module
 */
import { setConfigValue } from "./config_file.ts";
import { readConfigFile } from "./load.ts";
import { TRUSTED_FOLDERS_KEY } from "./trust.ts";

/** The folders the global config trusts, as written there. */
export async function readTrustedFolders(globalFile: string): Promise<string[]> {
  return (await readConfigFile(globalFile))[TRUSTED_FOLDERS_KEY] as string[] | undefined ?? [];
}

/**
 * Adds `folder` (already a real, absolute path) to `trusted_folders` in the global file;
 * returns false when it was listed already.
 */
export async function addTrustedFolder(globalFile: string, folder: string): Promise<boolean> {
  const folders = await readTrustedFolders(globalFile);
  if (folders.includes(folder)) return false;
  await setConfigValue(globalFile, TRUSTED_FOLDERS_KEY, [...folders, folder]);
  return true;
}

/**
 * Removes every entry in `candidates` (the path as given and its real path) from
 * `trusted_folders`; returns the entries removed.
 */
export async function removeTrustedFolder(
  globalFile: string,
  candidates: readonly string[],
): Promise<string[]> {
  const folders = await readTrustedFolders(globalFile);
  const removed = folders.filter((f) => candidates.includes(f));
  if (removed.length) {
    await setConfigValue(
      globalFile,
      TRUSTED_FOLDERS_KEY,
      folders.filter((f) => !removed.includes(f)),
    );
  }
  return removed;
}
