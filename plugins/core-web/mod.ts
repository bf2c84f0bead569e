/**
 * The bundled plugin replio-core-web: web_search and web_fetch. The HTML parsers they use load
 * on first call, so importing this at start-up costs nothing.
 * @module
 */
import { defineTool, type Plugin } from "../../src/plugins/api.ts";
import { fetchWebPage, webFetchSpec } from "./web_fetch.ts";
import { searchWeb, webSearchSpec } from "./web_search.ts";

/** replio-core-web's tools. */
export const plugin: Plugin = {
  name: "replio-core-web",
  tools: [
    defineTool(webSearchSpec, searchWeb),
    defineTool(webFetchSpec, fetchWebPage),
  ],
};
