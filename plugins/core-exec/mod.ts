/**
 * The bundled plugin replio-core-exec.
 * @module
 */
import { defineTool, type Plugin } from "../../src/plugins/api.ts";
import { runCommand, runCommandSpec } from "./run_command.ts";

/** replio-core-exec's tools. */
export const plugin: Plugin = {
  name: "replio-core-exec",
  tools: [defineTool(runCommandSpec, runCommand)],
};
