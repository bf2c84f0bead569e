/**
 * A drawn policy world made real (tests/security/policy_properties_test.ts): a root folder
 * holding a git worktree with protected files, symlinks into and out of it, its project config,
 * and the user's global config, loaded with folder trust the way replio loads it. Probes reset
 * what a call could change before it runs and read afterwards whether it did.
 * @module
 */
import { join } from "node:path";
import { type Config, ConfigError, loadConfig } from "../../src/config/mod.ts";
import { openSession, type Session } from "../../src/session/mod.ts";
import { ORIGINAL_CONTENT, type Probe } from "./policy_call_draws.ts";
import { type DrawnConfig, layerYaml, type TrustEntry } from "./policy_draws.ts";

/** A world on disk with its loaded config. */
export interface PolicyWorld extends AsyncDisposable {
  root: string;
  worktree: string;
  /** The global config file (`$XDG_CONFIG_HOME/replio/config.yaml` with XDG_CONFIG_HOME=root/xdg). */
  globalFile: string;
  config: Config;
  /** The same global config and flags with no project file: what an untrusted project may only tighten. */
  baseline: Config;
  /** The session parked calls are recorded in and answered from. */
  session: Session;
  /** Makes `probe` see a fresh state: the file as it started, no marker, a change to commit. */
  reset(probe: Probe): Promise<void>;
  /** Whether the call `probe` belongs to changed what it changes (a read: showed its secret). */
  observe(probe: Probe, output: string): Promise<boolean>;
}

/** Files every world starts with, relative to the root folder. */
const FILES: Record<string, string> = {
  "wt/secret.txt": "inside-secret\n",
  "wt/a.txt": ORIGINAL_CONTENT,
  "wt/src/b.txt": ORIGINAL_CONTENT,
  "wt/.gitignore": ORIGINAL_CONTENT,
  "wt/.github/ci.yml": ORIGINAL_CONTENT,
  "wt/tracked.txt": "tracked\n",
  "wt/.GIT/prop-target": ORIGINAL_CONTENT,
  "wt/sub/.git/prop-target": ORIGINAL_CONTENT,
  "wt/.replio/prop-target": ORIGINAL_CONTENT,
  // A linked worktree's or submodule's `.git` is a file.
  "wt/linked/.git": ORIGINAL_CONTENT,
  "outside.txt": ORIGINAL_CONTENT,
  "outside-read.txt": "outside-secret\n",
  "other/.git/prop-target": ORIGINAL_CONTENT,
  "w/keep.txt": "a sibling whose name is a prefix of the worktree's\n",
};

/** Written after `git init`, which makes `.git`. */
const GIT_FILES: Record<string, string> = {
  "wt/.git/prop-target": ORIGINAL_CONTENT,
  "wt/.git/link-target": ORIGINAL_CONTENT,
};

/** Symlinks (path → target as written in the link), relative to the root folder. */
const LINKS: Record<string, string> = {
  "wt/gitlink": ".git",
  "wt/replink": ".replio",
  "wt/hooklink": ".git/link-target",
  "wt/outlink": "../outside.txt",
  "wt/chain": "gitlink",
  "wt/danglink": ".git/dangling-target",
  "wtlink": "wt",
};

/** A trusted_folders entry as the global config lists it. */
function trustEntry(root: string, entry: TrustEntry): string {
  const paths: Record<TrustEntry, string> = {
    worktree: join(root, "wt"),
    parent: root,
    link: join(root, "wtlink"),
    sibling: join(root, "other"),
    prefix: join(root, "w"),
    relative: "wt",
  };
  return paths[entry];
}

/** The outcome of making a world: the world, or the clear error its config gave. */
export type WorldResult = { world: PolicyWorld } | { error: ConfigError };

/** The files, repository and links every world starts from, made once and copied. */
export interface WorldTemplate extends AsyncDisposable {
  path: string;
}

/** Makes the template: the files, a git repository with one commit, the links. */
export async function createWorldTemplate(): Promise<WorldTemplate> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_policy_template_" }));
  const worktree = join(path, "wt");
  for (const [file, content] of Object.entries(FILES)) await writeFile(path, file, content);
  // No template: git's sample hooks would only be more files to copy into every world.
  await git(worktree, "init", "-q", "--template=", "-b", "main");
  await git(worktree, "config", "user.name", "Property Test");
  await git(worktree, "config", "user.email", "property@example.com");
  await git(worktree, "config", "commit.gpgSign", "false");
  await git(worktree, "add", "tracked.txt");
  await git(worktree, "commit", "-q", "-m", "init");
  await Deno.mkdir(join(worktree, ".git", "hooks"));
  for (const [file, content] of Object.entries(GIT_FILES)) await writeFile(path, file, content);
  for (const [link, target] of Object.entries(LINKS)) await Deno.symlink(target, join(path, link));
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

/** Makes `drawn` real in a copy of `template` under a new temporary root folder. */
export async function buildWorld(
  drawn: DrawnConfig,
  template: WorldTemplate,
): Promise<WorldResult> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_policy_" }));
  const remove = () => Deno.remove(root, { recursive: true });
  try {
    await copyTree(template.path, root);
    return await populate(root, drawn, remove);
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Copies files, folders and symlinks (as links) from `from` into `to`. */
async function copyTree(from: string, to: string): Promise<void> {
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isSymlink) {
      await Deno.symlink(await Deno.readLink(source), target);
    } else if (entry.isDirectory) {
      await Deno.mkdir(target);
      await copyTree(source, target);
    } else {
      await Deno.copyFile(source, target);
    }
  }
}

async function populate(
  root: string,
  drawn: DrawnConfig,
  remove: () => Promise<void>,
): Promise<WorldResult> {
  const worktree = join(root, "wt");
  const globalFile = join(root, "xdg", "replio", "config.yaml");
  await writeFile(
    root,
    "xdg/replio/config.yaml",
    layerYaml(drawn.global, {
      trusted_folders: drawn.trustedFolders.map((entry) => trustEntry(root, entry)),
      sandbox: { mode: drawn.sandbox },
      // code_test runs `touch <its arguments>`: the file it makes shows that it ran.
      dev: { test_cmd: "touch" },
    }),
  );
  const local = join(worktree, ".replio", "config.yaml");
  if (drawn.project === "invalid") {
    await Deno.writeTextFile(local, "tools: [deny\n  :: not yaml\n");
  } else if (drawn.project !== null) {
    const self = drawn.projectTrustsItself ? { trusted_folders: [worktree] } : {};
    await Deno.writeTextFile(local, layerYaml(drawn.project, self));
  }
  const trust = drawn.trustFlag || undefined;
  let config: Config;
  try {
    config = await loadConfig({ worktree, paths: { global: globalFile, local }, trust });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    await remove();
    return { error };
  }
  const baseline = await loadConfig({
    worktree,
    paths: { global: globalFile, local: join(root, "no-project", "config.yaml") },
    trust,
  });
  const session = await openSession(worktree, { config });
  const reflog = join(worktree, ".git", "logs", "HEAD");
  let commitsBefore = 0;
  const world: PolicyWorld = {
    root,
    worktree,
    globalFile,
    config,
    baseline,
    session,
    async reset(probe) {
      if (probe.kind === "file") {
        await restoreLinks(root);
        const target = join(root, probe.target);
        if (probe.isNew) await Deno.remove(target).catch(ignoreMissing);
        else await Deno.writeTextFile(target, ORIGINAL_CONTENT);
      } else if (probe.kind === "marker") {
        await Deno.remove(join(worktree, probe.marker)).catch(ignoreMissing);
      } else if (probe.kind === "commit") {
        // Something to commit, so a commit that runs shows in the reflog.
        await Deno.writeTextFile(join(worktree, "tracked.txt"), crypto.randomUUID());
        commitsBefore = await lineCount(reflog);
      }
    },
    async observe(probe, output) {
      switch (probe.kind) {
        case "file": {
          const content = await readIfExists(join(root, probe.target));
          return probe.isNew ? content !== null : content !== ORIGINAL_CONTENT;
        }
        case "marker":
          return await readIfExists(join(worktree, probe.marker)) !== null;
        case "commit":
          return await lineCount(reflog) > commitsBefore;
        case "read":
          return output.includes(probe.secret);
      }
    },
    async [Symbol.asyncDispose]() {
      session[Symbol.dispose]();
      await remove();
    },
  };
  return { world };
}

/** A write that replaced a link with a file would change what later paths mean: put it back. */
async function restoreLinks(root: string): Promise<void> {
  for (const [path, target] of Object.entries(LINKS)) {
    const link = join(root, path);
    const info = await Deno.lstat(link).catch(ignoreMissing);
    if (info?.isSymlink) continue;
    if (info) await Deno.remove(link, { recursive: true });
    await Deno.symlink(target, link);
  }
}

async function writeFile(root: string, path: string, content: string): Promise<void> {
  const file = join(root, path);
  await Deno.mkdir(join(file, ".."), { recursive: true });
  await Deno.writeTextFile(file, content);
}

async function readIfExists(file: string): Promise<string | null> {
  return await Deno.readTextFile(file).catch(ignoreMissing) ?? null;
}

async function lineCount(file: string): Promise<number> {
  return (await readIfExists(file))?.split("\n").length ?? 0;
}

function ignoreMissing(error: unknown): undefined {
  if (error instanceof Deno.errors.NotFound) return undefined;
  throw error;
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const { success, stderr } = await new Deno.Command("git", {
    args,
    cwd,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
    env: { GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  }).output();
  if (!success) {
    throw new Error(
      `Cannot set up the world: git ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`,
    );
  }
}
