/**
 * The bundled plugin replio-core-edit.
 * @module
 */
import { defineTool, type Plugin } from "../../src/plugins/api.ts";
import { editFile, fileEditSpec } from "./file_edit.ts";

/** replio-core-edit's tools. */
export const plugin: Plugin = {
  name: "replio-core-edit",
  tools: [defineTool(fileEditSpec, editFile)],
};
