/**
 * git: read-only git (status, diff, log, branch, show, rev-parse) with vetted arguments.
 * @module
 */
import { type Static, type ToolContext, type ToolSpec, Type } from "../../src/plugins/api.ts";
import { checkGitArgs, GIT_SUBCOMMANDS, type GitSubcommand } from "./_git_args.ts";
import { gitFailure, runGit } from "./_run_git.ts";
import DESCRIPTION from "./git.md" with { type: "text" };

const parameters = Type.Object({
  subcommand: Type.Unsafe<GitSubcommand>({
    type: "string",
    enum: Object.keys(GIT_SUBCOMMANDS),
    description: "The git subcommand; rev_parse runs git rev-parse",
  }),
  args: Type.Optional(Type.Array(Type.String(), {
    description: 'Arguments after the subcommand, one per item, e.g. ["--oneline", "-n", "10"]',
  })),
});

/** The soft results: nothing to show is not an error. */
const NO_CHANGES = "(no changes)";
const NO_OUTPUT = "(no output)";

/** git's registration; each alias presets the subcommand. */
export const gitSpec = {
  name: "git",
  description: DESCRIPTION,
  parameters,
  category: "read",
  permission: "read",
  deno: { read: true, run: ["git"] },
  keyArg: "subcommand",
  verb: "Git",
  aliases: Object.keys(GIT_SUBCOMMANDS).map((subcommand) => ({
    name: `git_${subcommand}`,
    args: { subcommand },
  })),
  note: (result: string) => result === NO_CHANGES || result === NO_OUTPUT,
} satisfies ToolSpec<typeof parameters>;

/**
 * Configuration over runGit's hardening for reads: plain text, and no gpg at all (a pretty
 * alias may verify signatures), whoever configured it. runGit already keeps every program the
 * repository's own config names from running (docs/security.md § git).
 */
const SAFE_CONFIG = [
  "core.fsmonitor=false",
  "core.quotepath=false",
  "color.ui=false",
  "diff.submodule=short",
  "log.showSignature=false",
  "gpg.program=false",
  "gpg.openpgp.program=false",
  "gpg.x509.program=false",
  "gpg.ssh.program=false",
].flatMap((setting) => ["-c", setting]);

/**
 * Flags placed before the model's arguments: no external diff or textconv programs, plain
 * text, and no git runs inside submodules (their configuration is not vetted).
 */
const FORCED_ARGS: Readonly<Record<GitSubcommand, readonly string[]>> = {
  status: ["--ignore-submodules=dirty"],
  diff: ["--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules=dirty"],
  log: ["--no-ext-diff", "--no-textconv", "--no-color"],
  show: ["--no-ext-diff", "--no-textconv", "--no-color"],
  branch: ["--no-color"],
  rev_parse: [],
};

/** Runs one read-only git subcommand in the worktree and returns its output. */
export async function runGitCommand(
  { subcommand, args = [] }: Static<typeof parameters>,
  ctx: ToolContext,
): Promise<string> {
  checkGitArgs(subcommand, args);
  const command = GIT_SUBCOMMANDS[subcommand];
  const action = `git ${command}`;
  const output = await runGit(
    ctx,
    [...SAFE_CONFIG, command, ...FORCED_ARGS[subcommand], ...args],
    { action, maxChars: ctx.config.get("tool_max_result_chars") },
  );
  if (output.code !== 0 && !output.truncated) {
    // A partial clone lacks the object and replio's git never fetches (docs/security.md § git).
    const fix = /promisor remote|lazy fetching disabled/.test(output.stderr)
      ? "the object is not in this partial clone and the git tool never downloads: fetch it " +
        'with run_command "git fetch" (which asks first), or read another revision'
      : "check the arguments and call git again";
    throw new Error(gitFailure(action, output, fix));
  }
  const text = output.stdout.replace(/\n$/, "");
  if (text !== "") return text;
  return subcommand === "diff" ? NO_CHANGES : NO_OUTPUT;
}
