/**
 * The bundled plugin replio-core-fs.
 * @module
 */
import type { Plugin } from "../../src/plugins/api.ts";

/** replio-core-fs's tools. */
export const plugin: Plugin = {
  name: "replio-core-fs",
  tools: [],
};
