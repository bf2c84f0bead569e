/**
 * The worktree's `.git` and `.replio` under bwrap: present ones are bound read-only; a missing
 * one gets an empty read-only stand-in for as long as a sandbox runs, so a command cannot create
 * it (a `.git` with an fsmonitor hook, a `.replio/config.yaml` naming an MCP server, both run
 * later outside the sandbox).
 *
 * A mount needs a mount point, and the worktree is the host's own folder, so the stand-in is a
 * real empty folder there while a command runs. It is marked (modification time 0, the Unix
 * epoch) and removed once no sandbox mounts it: not while this process holds it, and not while
 * any process on the machine mounts it (another replio's sandbox), since removing a mount point
 * detaches the mounts on it everywhere and would let that sandbox create the folder after all.
 * One left by a replio that was killed is removed after the next command here. Git skips an
 * empty `.git` folder while it looks for a repository.
 * @module
 */
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { join } from "../fs/path.ts";
import { SandboxRefused } from "./sandbox_refused.ts";

/** Worktree folders a sandboxed command may read but never write or create. */
export const PROTECTED_DIRS = [".git", ".replio"] as const;

/** Stand-ins this process holds, with how many sandboxes (started or about to) use each. */
const held = new Map<string, number>();
let sweepsAtExit = false;

/** A protected path of the worktree's root, as a sandbox will bind it. */
export interface RootGuard {
  path: string;
  /** `present`: the real one; `stand-in`: an empty read-only folder while commands run. */
  kind: "present" | "stand-in";
}

/**
 * The root's protected paths to bind read-only. With `hold`, a missing one gets a stand-in now,
 * held until {@link releaseStandIns}; without it (a report), none is made. A path nobody may
 * create (a read-only file system, a folder the user may not write) needs no guard.
 */
export function rootGuards(worktree: string, options: { hold: boolean }): RootGuard[] {
  const guards: RootGuard[] = [];
  for (const name of PROTECTED_DIRS) {
    const path = join(worktree, name);
    const info = lstatOrNull(path);
    if (info && !isStandIn(path, info)) {
      guards.push({ path, kind: "present" });
      continue;
    }
    if (options.hold) {
      if (!info && !makeStandIn(path, name, worktree)) continue;
      held.set(path, (held.get(path) ?? 0) + 1);
      sweepAtExit();
    }
    guards.push({ path, kind: "stand-in" });
  }
  return guards;
}

/**
 * The stand-ins among `paths` that this process holds (paths a sandbox's argv binds), each once:
 * a bind names its path as source and destination, and a sandbox holds it once.
 */
export function heldStandIns(paths: readonly string[]): string[] {
  return [...new Set(paths)].filter((path) => held.has(path));
}

/**
 * Gives back a finished sandbox's holds, once it is wholly gone. bwrap's outer process exits as
 * soon as the command's status is known, before its init has ended the sandbox's other
 * processes (a command's `cmd &` among them) and with them its mounts; until then the stand-in
 * is still mounted there, and a process there could still make one were it removed. So this
 * waits, synchronously so that the caller's result comes after it, for the sandbox's process
 * group (`pgid`, set up by setsid) to have no live member; past {@link SANDBOX_END_MS} the
 * stand-ins stay, for a later sweep.
 */
export function releaseStandInsAfter(paths: readonly string[], pgid: number): void {
  if (!heldStandIns(paths).length) return;
  const deadline = performance.now() + SANDBOX_END_MS;
  while (hasLiveMember(pgid)) {
    if (performance.now() > deadline) {
      // Not given back: the stand-ins stay held until replio exits, and are swept then.
      return;
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
  }
  releaseStandIns(paths);
}

/** How long a finished sandbox may take to end its last processes (teardown takes < 1 ms). */
const SANDBOX_END_MS = 2_000;

/** Whether a process of group `pgid` is alive (a zombie is not: its namespaces are gone). */
function hasLiveMember(pgid: number): boolean {
  try {
    // Signal 0 only asks; Deno's type has no 0, but kill(2) takes it.
    Deno.kill(-pgid, 0 as unknown as Deno.Signal);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  let pids: string[];
  try {
    pids = [...Deno.readDirSync("/proc")].map((entry) => entry.name);
  } catch (error) {
    // No /proc to tell zombies apart: kill(2) said a member exists.
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return true;
    throw error;
  }
  for (const pid of pids) {
    // The sandbox's processes came after its group leader. One with a wrapped-around pid is
    // missed at worst: the stand-in then stays while it is mounted (sweep's own check).
    if (!/^\d+$/.test(pid) || Number(pid) < pgid) continue;
    let stat: string;
    try {
      stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound || isAccessError(error)) continue;
      throw error;
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(pgrp) === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/** Gives back one hold on each path; one no sandbox uses any more is removed. */
export function releaseStandIns(paths: readonly string[]): void {
  const free: string[] = [];
  for (const path of paths) {
    const count = held.get(path);
    if (count === undefined) continue;
    if (count > 1) {
      held.set(path, count - 1);
      continue;
    }
    held.delete(path);
    free.push(path);
  }
  if (free.length) sweep(free);
}

/** Whether `path` (seen as `info`) is a stand-in: an empty folder with the epoch's time. */
function isStandIn(path: string, info: Deno.FileInfo): boolean {
  if (!info.isDirectory || info.mtime?.getTime() !== 0) return false;
  try {
    return Deno.readDirSync(path)[Symbol.iterator]().next().done === true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return false;
    throw error;
  }
}

/** Makes the stand-in; false when the system refuses (then no command can create it either). */
function makeStandIn(path: string, name: string, worktree: string): boolean {
  try {
    Deno.mkdirSync(path);
  } catch (error) {
    // Made meanwhile, by someone else: it is then bound as it is.
    if (error instanceof Deno.errors.AlreadyExists) return true;
    if (error instanceof Deno.errors.NotCapable) {
      throw new SandboxRefused(
        `Cannot run commands in the sandbox: "${worktree}" has no ${name}, and replio may not ` +
          `put there the empty read-only stand-in that keeps a command from making one: ` +
          describeAccessError(error),
      );
    }
    if (isAccessError(error)) return false;
    throw error;
  }
  Deno.utimeSync(path, 0, 0);
  return true;
}

/** Removes each stand-in that is still one and that no sandbox mounts. */
function sweep(paths: readonly string[]): void {
  const candidates = paths.filter((path) => {
    const info = lstatOrNull(path);
    return info !== null && isStandIn(path, info);
  });
  if (!candidates.length) return;
  const mounted = mountedElsewhere(candidates);
  for (const path of candidates) {
    if (mounted === "unknown" || mounted.has(path)) continue;
    try {
      Deno.removeSync(path);
    } catch (error) {
      // Gone, filled meanwhile (a `git init` in another terminal), or not ours to remove.
      if (error instanceof Deno.errors.NotFound || isAccessError(error)) continue;
      if ((error as { code?: unknown }).code === "ENOTEMPTY") continue;
      throw error;
    }
  }
}

function sweepAtExit(): void {
  if (sweepsAtExit) return;
  sweepsAtExit = true;
  // Held or not: this process is ending. A stand-in its own MCP servers still mount stays (they
  // die with replio a moment later) and is removed after the next command here.
  globalThis.addEventListener("unload", () => sweep([...held.keys()]));
}

/**
 * Which of `paths` some process mounts in a mount namespace other than this one's (a sandbox),
 * read from `/proc/<pid>/mountinfo`; "unknown" when `/proc` cannot be read.
 */
function mountedElsewhere(paths: readonly string[]): Set<string> | "unknown" {
  const wanted = new Set(paths);
  const found = new Set<string>();
  let own: string;
  let pids: string[];
  try {
    own = Deno.readLinkSync("/proc/self/ns/mnt");
    pids = [...Deno.readDirSync("/proc")].map((entry) => entry.name).filter((name) =>
      /^\d+$/.test(name)
    );
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return "unknown";
    throw error;
  }
  const seen = new Set([own]);
  for (const pid of pids) {
    let mountinfo: string;
    try {
      const namespace = Deno.readLinkSync(`/proc/${pid}/ns/mnt`);
      if (seen.has(namespace)) continue;
      seen.add(namespace);
      mountinfo = Deno.readTextFileSync(`/proc/${pid}/mountinfo`);
    } catch (error) {
      // Exited while we looked, or another user's process (its sandbox cannot mount ours).
      if (error instanceof Deno.errors.NotFound || isAccessError(error)) continue;
      throw error;
    }
    for (const line of mountinfo.split("\n")) {
      // "id parent major:minor root mount-point options …"; spaces are written as \040.
      const point = line.split(" ")[4];
      if (point === undefined) continue;
      const path = point.replace(
        /\\([0-7]{3})/g,
        (_, octal) => String.fromCharCode(parseInt(octal, 8)),
      );
      if (wanted.has(path)) found.add(path);
    }
  }
  return found;
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}
