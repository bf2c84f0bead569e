/**
 * POSIX path functions with Node's `path.posix` results (`src/fs/path_test.ts` compares them on
 * generated paths). Why not `node:path`: the first `node:` import of a process starts Deno's Node
 * compatibility layer, about 9 ms of every start, and on the way to the first model request
 * replio needs nothing else of Node's. On Windows, where paths are not POSIX, Node's module
 * serves the same names.
 * @module
 */

/** The Windows fallback, loaded only there. */
const win32 = Deno.build.os === "windows" ? await import("node:path") : null;

export const sep: string = win32?.sep ?? "/";
export const delimiter: string = win32?.delimiter ?? ":";

/** `a/./b/../c` → `a/c`; `..` above a relative start stays, above the root it is dropped. */
function normalizeParts(parts: readonly string[], absolute: boolean): string[] {
  const out: string[] = [];
  for (const part of parts) {
    if (part === "" || part === ".") continue;
    if (part !== "..") out.push(part);
    else if (out.length > 0 && out.at(-1) !== "..") out.pop();
    else if (!absolute) out.push("..");
  }
  return out;
}

export function isAbsolute(path: string): boolean {
  return win32 ? win32.isAbsolute(path) : path.startsWith("/");
}

/** Dots and doubled slashes resolved; a trailing slash is kept, an empty path is `.`. */
export function normalize(path: string): string {
  if (win32) return win32.normalize(path);
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  let result = normalizeParts(path.split("/"), absolute).join("/");
  if (result === "" && !absolute) result = ".";
  if (result !== "" && path.endsWith("/")) result += "/";
  return absolute ? `/${result}` : result;
}

/**
 * The parts joined with `/` and normalised; empty parts are skipped.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(join("/a", "b/../c", "d.ts"), "/a/c/d.ts");
 * ```
 */
export function join(...parts: string[]): string {
  if (win32) return win32.join(...parts);
  const joined = parts.filter((part) => part !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/** An absolute path: the parts from the right until one is absolute, then the cwd. */
export function resolve(...parts: string[]): string {
  if (win32) return win32.resolve(...parts);
  let path = "";
  for (let i = parts.length - 1; i >= 0 && !path.startsWith("/"); i--) {
    if (parts[i] !== "") path = path === "" ? parts[i]! : `${parts[i]}/${path}`;
  }
  if (!path.startsWith("/")) path = path === "" ? Deno.cwd() : `${Deno.cwd()}/${path}`;
  return `/${normalizeParts(path.split("/"), true).join("/")}`;
}

/**
 * The way from `from` to `to` (both resolved first); "" when they are the same.
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(relative("/w/src", "/w/docs/a.md"), "../docs/a.md");
 * ```
 */
export function relative(from: string, to: string): string {
  if (win32) return win32.relative(from, to);
  const f = resolve(from).split("/").filter(Boolean);
  const t = resolve(to).split("/").filter(Boolean);
  let same = 0;
  while (same < f.length && same < t.length && f[same] === t[same]) same++;
  return [...Array(f.length - same).fill(".."), ...t.slice(same)].join("/");
}

/** The folder part: `/a/b` → `/a`, `a` → `.`, `/` → `/`. */
export function dirname(path: string): string {
  if (win32) return win32.dirname(path);
  if (path === "") return ".";
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  const slash = path.lastIndexOf("/", end - 1);
  if (slash === -1) return ".";
  if (slash === 0) return "/";
  // Node keeps a leading `//` (POSIX lets it mean something else than `/`): `//a` → `//`.
  if (slash === 1 && path[0] === "/") return "//";
  return path.slice(0, slash);
}

/** The last part, trailing slashes ignored: `/a/b/` → `b`. */
export function basename(path: string): string {
  if (win32) return win32.basename(path);
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

/** The root of an absolute path (`/`), or "" for a relative one. */
export function rootOf(path: string): string {
  if (win32) return win32.parse(path).root;
  return path.startsWith("/") ? "/" : "";
}
