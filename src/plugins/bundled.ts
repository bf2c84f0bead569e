/**
 * The static list of bundled plugins. Static imports (no reads of the source tree at run time)
 * keep `deno compile`, `deno bundle` and `deno run <url>` working.
 * @module
 */
import { plugin as coreDev } from "../../plugins/core-dev/mod.ts";
import { plugin as coreEdit } from "../../plugins/core-edit/mod.ts";
import { plugin as coreExec } from "../../plugins/core-exec/mod.ts";
import { plugin as coreFs } from "../../plugins/core-fs/mod.ts";
import { plugin as coreGit } from "../../plugins/core-git/mod.ts";
import { plugin as coreWeb } from "../../plugins/core-web/mod.ts";
import type { Plugin } from "./api.ts";

/** Bundled plugins in the order their tools are listed. */
export const BUNDLED_PLUGINS: readonly Plugin[] = [
  coreWeb,
  coreFs,
  coreEdit,
  coreGit,
  coreDev,
  coreExec,
];
