/**
 * The bundled plugin replio-core-web.
 * @module
 */
import type { Plugin } from "../../src/plugins/api.ts";

/** replio-core-web's tools. */
export const plugin: Plugin = {
  name: "replio-core-web",
  tools: [],
};
