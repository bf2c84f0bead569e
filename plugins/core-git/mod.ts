/**
 * The bundled plugin replio-core-git.
 * @module
 */
import { defineTool, type Plugin } from "../../src/plugins/api.ts";
import { gitSpec, runGitCommand } from "./git.ts";
import { commitChanges, gitCommitSpec } from "./git_commit.ts";

/** replio-core-git's tools. */
export const plugin: Plugin = {
  name: "replio-core-git",
  tools: [defineTool(gitSpec, runGitCommand), defineTool(gitCommitSpec, commitChanges)],
};
