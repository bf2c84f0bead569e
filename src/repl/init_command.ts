/**
 * `/init`: the model takes a quick look at the repository and writes AGENTS.md, the file coding
 * agents read first, through the same tools and policy as any turn.
 * @module
 */
import { join } from "../fs/path.ts";
import type { SlashCommand } from "./context.ts";

/** The file written; replio's system prompt reads it too. */
const AGENTS_FILE = "AGENTS.md";

/** The turn's prompt: what a useful AGENTS.md holds, and to stay quick. */
const INIT_PROMPT = `Take a quick look at this repository and write ${AGENTS_FILE} at its root ` +
  `with file_write. Read the README, the build and package files (package.json, deno.json, ` +
  `Cargo.toml, go.mod, pyproject.toml, Makefile, …) and list the top folders; do not read ` +
  `everything. ${AGENTS_FILE} should say, in under 60 lines: what the project is; the exact ` +
  `commands to build, test, lint and format it; how the code is laid out; and the conventions ` +
  `a coding agent must follow here. Change no other file.`;

/** `/init`. */
export const initCommand: SlashCommand = {
  name: "init",
  usage: "/init",
  summary: `Write ${AGENTS_FILE} from a quick look at the repository (uses the model)`,
  async run(repl) {
    const exists = await Deno.stat(join(repl.worktree, AGENTS_FILE)).then(() => true, (error) => {
      if (error instanceof Deno.errors.NotFound) return false;
      throw error;
    });
    if (exists) {
      repl.print(
        `${AGENTS_FILE} exists already: /init leaves it as it is; edit it, or delete it and run /init again`,
        repl.styles.dim,
      );
      return;
    }
    await repl.sendMessage(INIT_PROMPT);
  },
};
