/**
 * `deno task sandbox:<recipe> [replio arguments]`: runs replio under one of the sandbox recipes
 * of docs/sandbox.md in the folder the task was started from (from another folder than the
 * checkout, name its deno.json with `--config`). This launcher is not sandboxed itself: it reads
 * replio's config to find the model host, prints the exact `deno run` line, quoted for the shell,
 * and runs it, passing the exit code through.
 *
 * ```sh
 * deno task --config /path/to/replio/deno.json sandbox:review run "summarize the README"
 * ```
 * @module
 */
import { fileURLToPath } from "node:url";
import { loadConfig } from "../src/config/mod.ts";
import { findRecipe, hostOfUrl, SANDBOX_RECIPES } from "../src/cli/sandbox_recipes.ts";
import { shellLine } from "../src/tools/shell_quote.ts";

const MAIN = fileURLToPath(new URL("../main.ts", import.meta.url));
const OPENAI_URL = "https://api.openai.com/v1";
const OLLAMA_URL = "http://127.0.0.1:11434/v1";

function fail(message: string): never {
  Deno.stderr.writeSync(new TextEncoder().encode(`sandbox: ${message}\n`));
  Deno.exit(2);
}

const [name, ...replioArgs] = Deno.args;
const recipe = findRecipe(name ?? "");
if (!recipe) {
  fail(
    `Cannot run recipe "${name ?? ""}": use one of ${
      SANDBOX_RECIPES.map((r) => r.name).join(", ")
    }`,
  );
}
// `deno task` runs in the checkout; INIT_CWD is where the user started it.
const worktree = await Deno.realPath(Deno.env.get("INIT_CWD") || Deno.cwd());
const config = await loadConfig({ worktree });
const flagAt = replioArgs.indexOf("--base-url");
const fromEnv = Deno.env.get("OPENAI_BASE_URL")?.trim() ?? "";
const keyEnv = config.get("api_key_env");
const configured = (flagAt >= 0 ? replioArgs[flagAt + 1] : undefined) || config.get("base_url");
const baseUrl = configured ||
  (config.get("provider") === "ollama" ? OLLAMA_URL : fromEnv) ||
  (keyEnv && Deno.env.get(keyEnv) ? OPENAI_URL : OLLAMA_URL);
const env = [
  ...(keyEnv ? [keyEnv] : []),
  ...(!configured && fromEnv ? ["OPENAI_BASE_URL"] : []),
];
const flags = recipe.flags({ worktree, modelHost: hostOfUrl(baseUrl), env });
const args = ["run", ...flags, MAIN, ...replioArgs];
// Quoted as a shell reads it: pasted back, the line runs the same recipe without the task.
Deno.stderr.writeSync(new TextEncoder().encode(`sandbox: ${shellLine(["deno", ...args])}\n`));
const child = new Deno.Command(Deno.execPath(), {
  args,
  cwd: worktree,
  stdin: "inherit",
  stdout: "inherit",
  stderr: "inherit",
}).spawn();
Deno.exit((await child.status).code);
