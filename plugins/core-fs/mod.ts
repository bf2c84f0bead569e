/**
 * The bundled plugin replio-core-fs: reading, listing, writing and searching files.
 * @module
 */
import { defineTool, type Plugin } from "../../src/plugins/api.ts";
import { fileReadSpec, readFile } from "./file_read.ts";
import { fileWriteSpec, writeFile } from "./file_write.ts";
import { globFiles, globSpec } from "./glob.ts";
import { grepFiles, grepSpec } from "./grep.ts";
import { listDir, listDirSpec } from "./list_dir.ts";
import { readToolOutput, toolOutputSpec } from "./tool_output.ts";

/** replio-core-fs's tools. */
export const plugin: Plugin = {
  name: "replio-core-fs",
  tools: [
    defineTool(fileReadSpec, readFile),
    defineTool(listDirSpec, listDir),
    defineTool(fileWriteSpec, writeFile),
    defineTool(globSpec, globFiles),
    defineTool(grepSpec, grepFiles),
    defineTool(toolOutputSpec, readToolOutput),
  ],
};
