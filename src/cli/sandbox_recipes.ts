/**
 * The sandbox recipes of docs/sandbox.md: the `deno run` flags for a read-only review, for
 * editing without a shell, and for full use. One table serves the `deno task sandbox:*` launcher
 * (scripts/sandbox.ts), the docs and the test that runs each recipe against the mock model.
 * @module
 */

/** What a recipe's flags depend on. */
export interface RecipeTarget {
  /** The worktree, absolute. */
  worktree: string;
  /** `host:port` of the model server (`api.openai.com:443`, `127.0.0.1:11434`). */
  modelHost: string;
  /**
   * Variables replio must see: the API key's (config `api_key_env`), and `OPENAI_BASE_URL`
   * when that is where the endpoint comes from. Empty for none.
   */
  env: readonly string[];
}

/** A named set of Deno flags and what it promises. */
export interface SandboxRecipe {
  name: "review" | "edit" | "full";
  /** One line for docs and `--help`. */
  summary: string;
  /** The Deno flags, `--no-prompt` first. */
  flags(target: RecipeTarget): string[];
}

const envFlag = (env: readonly string[]) => env.length ? [`--allow-env=${env.join(",")}`] : [];

/** The recipes, narrowest first. */
export const SANDBOX_RECIPES: readonly SandboxRecipe[] = [
  {
    name: "review",
    summary: "read the worktree and talk to the model; nothing is written, run or fetched",
    flags: ({ worktree, modelHost, env }) => [
      "--no-prompt",
      `--allow-read=${worktree}`,
      `--allow-net=${modelHost}`,
      ...envFlag(env),
    ],
  },
  {
    name: "edit",
    summary: "also edit files in the worktree and keep sessions; no program is ever run",
    flags: ({ worktree, modelHost, env }) => [
      "--no-prompt",
      `--allow-read=${worktree}`,
      `--allow-write=${worktree}`,
      `--allow-net=${modelHost}`,
      ...envFlag(env),
    ],
  },
  {
    name: "full",
    summary: "every tool: commands, git and the web (replio's own policy still decides)",
    flags: () => ["--no-prompt", "-A"],
  },
];

/** The recipe called `name`, or undefined. */
export function findRecipe(name: string): SandboxRecipe | undefined {
  return SANDBOX_RECIPES.find((recipe) => recipe.name === name);
}

/** Characters a shell word may hold unquoted. */

/**
 * `host:port` of an endpoint URL, as `--allow-net` wants it.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(hostOfUrl("https://api.openai.com/v1"), "api.openai.com:443");
 * assert.equal(hostOfUrl("http://127.0.0.1:8080/v1"), "127.0.0.1:8080");
 * ```
 */
export function hostOfUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.port
    ? parsed.host
    : `${parsed.hostname}:${parsed.protocol === "https:" ? 443 : 80}`;
}
