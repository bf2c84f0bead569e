/**
 * The core tools that are not plugins of their own: ask and delegate.
 * @module
 */
import type { Plugin } from "../plugins/api.ts";
import { askTool } from "./ask_tool.ts";
import { delegateTool } from "./delegate_tool.ts";

/** ask and delegate, registered after the bundled plugins. */
export const CORE_PLUGIN: Plugin = { name: "core", tools: [delegateTool, askTool] };
