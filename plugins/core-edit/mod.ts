/**
 * The bundled plugin replio-core-edit.
 * @module
 */
import type { Plugin } from "../../src/plugins/api.ts";

/** replio-core-edit's tools. */
export const plugin: Plugin = {
  name: "replio-core-edit",
  tools: [],
};
