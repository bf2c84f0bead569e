/**
 * The bundled plugin replio-core-git.
 * @module
 */
import type { Plugin } from "../../src/plugins/api.ts";

/** replio-core-git's tools. */
export const plugin: Plugin = {
  name: "replio-core-git",
  tools: [],
};
