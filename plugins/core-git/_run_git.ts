/**
 * Runs the real `git` for core-git's tools, the one place every git of replio starts: no pager,
 * no editor, no prompts, stdin closed, in the worktree, with stdout read only up to the result
 * cap, and hardened against the repository itself. A repository's `.git/config` can name
 * programs for git to run (an fsmonitor hook, a clean filter, a promisor remote's upload-pack,
 * gpg) and its hooks are programs; none of them may run because replio read or committed. See
 * docs/security.md § git for each setting and why.
 * @module
 */
import { childEnv, type ToolContext } from "../../src/plugins/api.ts";

/** What git printed and how it ended. */
export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
  /** Whether stdout was cut at `maxChars` and git ended early (its exit code then means nothing). */
  truncated: boolean;
}

/** Options for {@link runGit}. */
export interface RunGitOptions {
  /** Stop reading stdout (and end git) past this many characters; 0 reads everything. */
  maxChars?: number;
  /** How the failed action is named in errors, e.g. `git diff`. */
  action: string;
  /** Run the repository's hooks (git_commit with `git.run_hooks: true`); default false. */
  hooks?: boolean;
}

/**
 * Environment for every git run: pagers and editors become no-ops and nothing waits for a
 * person; optional index writes are skipped so a read never takes `index.lock`; no transport
 * at all, so a partial clone's lazy fetch cannot start a promisor remote's `uploadpack`,
 * `core.sshCommand` or `ext::` command.
 */
const GIT_ENV: Readonly<Record<string, string>> = {
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  GIT_TERMINAL_PROMPT: "0",
  GIT_OPTIONAL_LOCKS: "0",
  GCM_INTERACTIVE: "never",
  // Never fetch a missing object on demand (git's security releases of May 2024 on; older
  // gits ignore it, and the protocol settings below stop the fetch there).
  GIT_NO_LAZY_FETCH: "1",
  // An allowlist of no protocol: it overrides every protocol.*.allow, even the repository's own
  // `protocol.file.allow=always`, which beats a command-line `protocol.allow=never`.
  GIT_ALLOW_PROTOCOL: "",
};

/** Protocols git knows; each is denied by name too, for gits that ignore GIT_ALLOW_PROTOCOL. */
const PROTOCOLS = ["file", "git", "ssh", "http", "https", "ext"];

/**
 * Settings given on the command line, which outrank every configuration file (includes too):
 * no fsmonitor hook, no pager, no transport.
 */
const HARDENED_CONFIG: readonly string[] = [
  "core.fsmonitor=false",
  "core.pager=cat",
  "protocol.allow=never",
  ...PROTOCOLS.map((protocol) => `protocol.${protocol}.allow=never`),
].flatMap((setting) => ["-c", setting]);

/**
 * Hooks are looked up in /dev/null, where none exists: the repository's own hooks (in
 * `.git/hooks` or a `core.hooksPath` it sets) are code nobody reviewed.
 */
const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

/**
 * Keys naming a program git may run during status, diff, add or commit, and what replaces a
 * repository's own value when the user's (system, global) config gives none: the program's
 * built-in name, or empty for none. A pattern's `*` is a driver or remote name.
 */
const PROGRAM_KEYS: readonly { pattern: RegExp; neutral: string }[] = [
  // Clean filters run when status, diff and add read a file; smudge on checkout.
  { pattern: /^filter\.(.+)\.(clean|smudge|process)$/, neutral: "" },
  // Signing a commit (commit.gpgSign) runs these.
  { pattern: /^gpg\.program$/, neutral: "gpg" },
  { pattern: /^gpg\.openpgp\.program$/, neutral: "gpg" },
  { pattern: /^gpg\.x509\.program$/, neutral: "gpgsm" },
  { pattern: /^gpg\.ssh\.program$/, neutral: "ssh-keygen" },
  { pattern: /^gpg\.ssh\.defaultkeycommand$/, neutral: "" },
  // Transports are off (GIT_ALLOW_PROTOCOL); these are reset as well in case one gets through.
  { pattern: /^core\.sshcommand$/, neutral: "ssh" },
  { pattern: /^core\.askpass$/, neutral: "" },
];

/** Scopes of the user's and the administrator's own configuration, and of `git -c`. */
const TRUSTED_SCOPES = new Set(["system", "global", "command"]);

/** Runs `git --no-pager <hardening> <args>` in the worktree. */
export async function runGit(
  ctx: ToolContext,
  args: readonly string[],
  options: RunGitOptions,
): Promise<GitOutput> {
  const hardening = [...HARDENED_CONFIG, ...(options.hooks ? [] : NO_HOOKS)];
  const listed = await spawnGit(ctx, [...hardening, "config", "-z", "--show-scope", "--list"], {
    action: options.action,
  });
  if (listed.code !== 0) {
    throw new Error(gitFailure(options.action, listed, "fix the git configuration it names"));
  }
  const overrides = repositoryProgramOverrides(listed.stdout);
  return await spawnGit(ctx, [...hardening, ...overrides, ...args], options);
}

/**
 * `-c` settings replacing every program-naming key the repository's own configuration (local
 * or worktree scope, files it includes too) sets: with the value the user's configuration
 * gives for the same key, else with the neutral one. A filter loses `required` as well, so an
 * emptied filter is not an error. Filters and gpg the user configured (git-lfs) keep working.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * const listing = "local\0filter.evil.clean\nsh -c x\0global\0gpg.program\ngpg2\0" +
 *   "local\0gpg.program\n./sign\0";
 * assert.deepEqual(repositoryProgramOverrides(listing), [
 *   "-c", "filter.evil.clean=", "-c", "filter.evil.required=false",
 *   "-c", "gpg.program=gpg2",
 * ]);
 * ```
 */
export function repositoryProgramOverrides(listing: string): string[] {
  // -z prints "scope NUL key LF value NUL": a subsection may hold spaces, never a newline.
  const fields = listing.split("\0");
  const trusted = new Map<string, string>();
  const untrusted = new Set<string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const scope = fields[i]!;
    const entry = fields[i + 1]!;
    const newline = entry.indexOf("\n");
    const key = newline === -1 ? entry : entry.slice(0, newline);
    const value = newline === -1 ? "" : entry.slice(newline + 1);
    const lower = lowerCaseKey(key);
    if (!PROGRAM_KEYS.some(({ pattern }) => pattern.test(lower))) continue;
    if (TRUSTED_SCOPES.has(scope)) trusted.set(lower, value);
    else untrusted.add(key);
  }
  const settings: string[] = [];
  for (const key of untrusted) {
    const lower = lowerCaseKey(key);
    const neutral = PROGRAM_KEYS.find(({ pattern }) => pattern.test(lower))!.neutral;
    settings.push(`${key}=${trusted.get(lower) ?? neutral}`);
    const filter = /^filter\.(.+)\.[^.]+$/.exec(key);
    if (filter && !trusted.has(lower)) settings.push(`filter.${filter[1]}.required=false`);
  }
  return [...new Set(settings)].flatMap((setting) => ["-c", setting]);
}

/** Section and key lower-cased, the subsection (a driver or remote name) kept as written. */
function lowerCaseKey(key: string): string {
  const first = key.indexOf(".");
  const last = key.lastIndexOf(".");
  if (first === last) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${
    key.slice(last).toLowerCase()
  }`;
}

async function spawnGit(
  ctx: ToolContext,
  args: readonly string[],
  options: RunGitOptions,
): Promise<GitOutput> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("git", {
      args: ["--no-pager", ...args],
      cwd: ctx.worktree,
      // The whole environment is given: secrets withheld (childEnv), the git settings above.
      clearEnv: true,
      env: childEnv(ctx.config, GIT_ENV),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: ctx.signal,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(
        `Cannot run ${options.action}: git is not installed or not on PATH: install git`,
      );
    }
    if (error instanceof Deno.errors.NotCapable) {
      throw new Deno.errors.NotCapable(
        `Cannot run ${options.action}: replio was started without permission to run git: ` +
          `restart it with --allow-run=git (or --allow-run)`,
      );
    }
    throw error;
  }
  const [read, stderr] = await Promise.all([
    readCapped(child, options.maxChars ?? 0),
    new Response(child.stderr).text(),
  ]);
  const { code } = await child.status;
  ctx.signal.throwIfAborted();
  if (/not a git repository/i.test(stderr)) {
    throw new Error(
      `Cannot run ${options.action}: "${ctx.worktree}" is not inside a git repository: ` +
        `start replio in a repository (or pass --path), or create one with run_command "git init"`,
    );
  }
  return { code, stdout: read.text, stderr, truncated: read.truncated };
}

/**
 * Reads stdout up to `maxChars` (the registry cuts and marks the excess); past it git is ended,
 * so an unbounded `git log` of a large history costs no more than one capped result.
 */
async function readCapped(
  child: Deno.ChildProcess,
  maxChars: number,
): Promise<{ text: string; truncated: boolean }> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk, { stream: true });
    if (maxChars > 0 && text.length > maxChars) {
      endEarly(child);
      return { text, truncated: true };
    }
  }
  return { text: text + decoder.decode(), truncated: false };
}

function endEarly(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGTERM");
  } catch (error) {
    // git may have finished writing and exited between the read and the kill.
    if (!(error instanceof TypeError)) throw error;
  }
}

/**
 * A git failure as the model reads it: the action, the exit code, git's own message, the fix.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(
 *   gitFailure("git log", { code: 128, stdout: "", stderr: "fatal: bad revision 'x'\n" }, "fix"),
 *   "Cannot run git log: exit 128: fatal: bad revision 'x': fix",
 * );
 * ```
 */
export function gitFailure(
  action: string,
  output: Pick<GitOutput, "code" | "stdout" | "stderr">,
  fix: string,
): string {
  const said = (output.stderr.trim() || output.stdout.trim()).replace(/\.$/, "");
  return `Cannot run ${action}: exit ${output.code}${said ? `: ${said}` : ""}: ${fix}`;
}
