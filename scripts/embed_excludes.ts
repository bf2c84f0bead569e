/**
 * What `deno compile` may leave out of replio's binary: the files of the npm packages the program
 * reaches that no running program reads. `--exclude-unused-npm` already drops the packages the
 * module graph never reaches (the test-only ones); a reached package still ships its type
 * declarations, source maps, TypeScript sources, docs and tests (zod's sources alone are 3 MB,
 * domino's tests 6 MB). Deno runs none of them: it type-checks before embedding, from its cache,
 * and runs no TypeScript from npm packages. A file that a package's `main`, `module`, `browser`
 * or a run-time `exports` condition names is always kept, whatever its name.
 * @module
 */
import { join } from "node:path";

/** Declarations, source maps, TypeScript sources and docs: read by tools and people, not by Deno. */
const NON_RUNTIME_FILE = /(\.d\.[cm]?ts|\.[cm]?tsx?|\.map|\.md|\.markdown)$/i;
/** Top-level folders of a package that hold its tests, benchmarks, docs or CI settings. */
const NON_RUNTIME_DIRS = new Set([
  ".github",
  "__tests__",
  "benchmark",
  "benchmarks",
  "doc",
  "docs",
  "example",
  "examples",
  "spec",
  "test",
  "tests",
]);
/**
 * `exports` conditions that only type checkers and bundlers read (`types@>=5`, zod's
 * `@zod/source`): their targets are no reason to keep a file.
 */
const TOOL_CONDITION = /^types|^typings$|source$/;

/** One npm package of `deno info --json`. */
interface InfoPackage {
  dependencies: string[];
  localPath?: string;
}

/** The parts of `deno info --json FILE` read here. */
interface ModuleInfo {
  modules: { kind: string; npmPackage?: string }[];
  npmPackages?: Record<string, InfoPackage>;
}

/**
 * The npm packages reached from `entries` (their cache folders): the packages the module graph
 * imports and everything they depend on, as `--exclude-unused-npm` embeds them.
 */
export async function reachedPackageDirs(root: string, entries: string[]): Promise<string[]> {
  const dirs = new Set<string>();
  for (const entry of entries) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", entry],
      cwd: root,
      env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) {
      throw new Error(
        `Cannot read the module graph of "${entry}": deno info failed: ` +
          `${new TextDecoder().decode(out.stderr).trim()}: run deno check ${entry}`,
      );
    }
    const info: ModuleInfo = JSON.parse(new TextDecoder().decode(out.stdout));
    const packages = info.npmPackages ?? {};
    const pending = info.modules.flatMap((module) => module.npmPackage ?? []);
    const seen = new Set<string>();
    for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const found = packages[id];
      if (found?.localPath) dirs.add(found.localPath);
      pending.push(...(found?.dependencies ?? []));
    }
  }
  return [...dirs].sort();
}

/**
 * The paths under one package folder that no running program reads: a folder where every file
 * qualifies is named once, else its files one by one.
 */
export async function nonRuntimePaths(packageDir: string): Promise<string[]> {
  const isKept = await runtimeTargets(packageDir);
  const walk = async (
    dir: string,
    isTop: boolean,
  ): Promise<{ paths: string[]; isAllOut: boolean }> => {
    const paths: string[] = [];
    let isAllOut = true;
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) {
        const inner = isTop && NON_RUNTIME_DIRS.has(entry.name) && !isKept(path)
          ? { paths: [], isAllOut: true }
          : await walk(path, false);
        if (inner.isAllOut) paths.push(path);
        else paths.push(...inner.paths);
        isAllOut &&= inner.isAllOut;
      } else if (entry.isFile && NON_RUNTIME_FILE.test(entry.name) && !isKept(path)) {
        paths.push(path);
      } else {
        isAllOut = false;
      }
    }
    return { paths, isAllOut };
  };
  return (await walk(packageDir, true)).paths.sort();
}

/**
 * Whether a path is, or holds, a file that the package's `package.json` points the runtime at.
 */
async function runtimeTargets(packageDir: string): Promise<(path: string) => boolean> {
  const manifest = JSON.parse(await Deno.readTextFile(join(packageDir, "package.json")));
  const targets: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === "string") targets.push(join(packageDir, value));
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value !== null && typeof value === "object") {
      for (const [key, inner] of Object.entries(value)) {
        if (!TOOL_CONDITION.test(key)) collect(inner);
      }
    }
  };
  for (const field of ["main", "module", "browser", "exports", "bin"]) collect(manifest[field]);
  // A pattern such as "./dist/esm/*" serves whatever is imported through it, which is never a
  // declaration or a map; one with a suffix ("./src/*.ts") keeps what it names.
  const patterns = targets.filter((target) => !target.endsWith("*")).map((target) =>
    new RegExp(`^${target.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`)
  );
  return (path) =>
    patterns.some((pattern) => pattern.test(path)) ||
    targets.some((target) => !target.endsWith("*") && target.startsWith(`${path}/`));
}
