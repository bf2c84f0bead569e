/**
 * The bundled plugin replio-core-exec.
 * @module
 */
import type { Plugin } from "../../src/plugins/api.ts";

/** replio-core-exec's tools. */
export const plugin: Plugin = {
  name: "replio-core-exec",
  tools: [],
};
