/**
 * The bundled plugin replio-core-dev.
 * @module
 */
import { defineTool, type Plugin } from "../../src/plugins/api.ts";
import { codeFormatSpec, runFormatter } from "./code_format.ts";
import { codeLintSpec, runLinter } from "./code_lint.ts";
import { codeTestSpec, runTests } from "./code_test.ts";

/** replio-core-dev's tools. */
export const plugin: Plugin = {
  name: "replio-core-dev",
  tools: [
    defineTool(codeTestSpec, runTests),
    defineTool(codeLintSpec, runLinter),
    defineTool(codeFormatSpec, runFormatter),
  ],
};
