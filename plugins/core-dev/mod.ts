/**
 * The bundled plugin replio-core-dev.
 * @module
 */
import type { Plugin } from "../../src/plugins/api.ts";

/** replio-core-dev's tools. */
export const plugin: Plugin = {
  name: "replio-core-dev",
  tools: [],
};
