/**
 * The host's unix sockets, out of a sandboxed command's reach. A path socket is reached through
 * the filesystem whatever the network namespace, and a read-only mount does not stop `connect`:
 * docker.sock, the D-Bus buses and systemd's user manager would run things outside the sandbox.
 *
 * - `/run`, `/var/run` and `$XDG_RUNTIME_DIR`, where daemons keep their sockets, are replaced by
 *   an empty tmpfs. What commands need from them comes back: the links directly in them that
 *   lead into `/dev` or `/nix/store` (`/run/shm`, NixOS's `/run/current-system`),
 *   `/etc/resolv.conf` when it points into them, and an empty private `$XDG_RUNTIME_DIR`.
 * - Sockets (and FIFOs) under `$HOME` are covered by `/dev/null`: those in its hidden folders,
 *   up to two folders down (`~/.docker/run/docker.sock`, `~/.ssh/<control socket>`), found
 *   before each command ({@link TreeScan}).
 * - LXD's sockets outside `/run` are covered the same way.
 * - `/tmp` is private already (sandbox_bwrap.ts), and abstract sockets belong to the network
 *   namespace, which is the sandbox's own while the network is off.
 * @module
 */
import { isAccessError } from "../fs/access_error.ts";
import { isAbsolute, join } from "../fs/path.ts";
import { ScanLimitError, TreeScan } from "./tree_scan.ts";

/** Where the host's sockets normally live, each hidden behind an empty tmpfs. */
const RUNTIME_DIRS = ["/run", "/var/run"];
/**
 * Where a link in a hidden folder may lead and be made again: the sandbox's own fresh `/dev`
 * (`/run/shm`), and NixOS's read-only store (`/run/current-system`, whose `sw/bin` is on PATH).
 */
const RESTORED_TARGETS = ["/dev", "/nix/store"];
/** Sockets outside those folders that hand out root: LXD's, as a package and as a snap. */
const KNOWN_SOCKETS = ["/var/lib/lxd/unix.socket", "/var/snap/lxd/common/lxd/unix.socket"];
/** Depth of the deepest folder under `$HOME` read: `~/.docker/run` is 2. */
const HOME_DEPTH = 2;
/** Folders of `$HOME` looked at before each command; past it `$HOME` is hidden whole. */
const MAX_HOME_FOLDERS = 20_000;

/** How a sandbox keeps the host's sockets away, as bwrap mounts. */
export interface SocketCover {
  /** Folders replaced by an empty tmpfs (real paths, none inside another). */
  hidden: string[];
  /** Links in those folders made again: `[target, path]`. */
  links: [string, string][];
  /** Files bound read-only again over the tmpfs (`/etc/resolv.conf`'s target). */
  files: string[];
  /** Empty folders made in the tmpfs (`$XDG_RUNTIME_DIR`, private to the command). */
  dirs: string[];
  /** Sockets and FIFOs covered by `/dev/null`. */
  covered: string[];
  /** What `$HOME` got: its sockets looked for, hidden whole (replio may not read it), or neither. */
  home: { path: string; how: "looked" | "hidden" } | { path: null; how: "unknown" };
}

const homeScans = new Map<string, TreeScan>();

/** The cover for a command whose worktree is `worktree` (its sockets are left alone). */
export function coverSockets(worktree: string): SocketCover {
  const runtime = envIfGranted("XDG_RUNTIME_DIR");
  const hidden = hiddenDirs([...RUNTIME_DIRS, ...runtime && isAbsolute(runtime) ? [runtime] : []]);
  const links = hidden.flatMap(linksIn);
  const resolv = realOrNull("/etc/resolv.conf");
  const files = resolv && hidden.some((dir) => isWithin(resolv, dir)) ? [resolv] : [];
  const runtimeReal = runtime ? realOrNull(runtime) : null;
  const dirs = runtimeReal && hidden.some((dir) => isWithin(runtimeReal, dir)) ? [runtimeReal] : [];
  const covered = KNOWN_SOCKETS.filter(isSpecial);
  const home = homeOf(worktree);
  if (home.how === "looked") covered.push(...home.sockets);
  else if (home.how === "hidden") hidden.push(home.path);
  return {
    hidden,
    links,
    files,
    dirs,
    covered,
    home: home.how === "unknown"
      ? { path: null, how: "unknown" }
      : { path: home.path, how: home.how },
  };
}

/** The folders that exist, as real paths, without one inside another or inside `/tmp`. */
function hiddenDirs(candidates: string[]): string[] {
  const real = [...new Set(candidates.map(realOrSelf).filter((path) => path !== null))]
    .filter((path) => path !== "/" && !isWithin(path, "/tmp"));
  return real.filter((path) => !real.some((other) => other !== path && isWithin(path, other)));
}

/**
 * Links directly in `dir` that lead into {@link RESTORED_TARGETS}, to be made again in its tmpfs.
 * Others stay hidden: `/var/run/docker.sock` may be a link to the socket's real place, and the
 * link is the path clients use.
 */
function linksIn(dir: string): [string, string][] {
  try {
    return [...Deno.readDirSync(dir)].filter((entry) => entry.isSymlink).flatMap((entry) => {
      const path = join(dir, entry.name);
      const target = realOrNull(path);
      return target && RESTORED_TARGETS.some((safe) => isWithin(target, safe))
        ? [[Deno.readLinkSync(path), path] as [string, string]]
        : [];
    });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return [];
    throw error;
  }
}

type Home =
  | { how: "looked"; path: string; sockets: string[] }
  | { how: "hidden"; path: string }
  | { how: "unknown" };

/**
 * The sockets under `$HOME`. When replio may not read it (a narrow `--allow-read`), the sandbox
 * hides it whole rather than leave sockets nobody looked for; so it does past the folder limit.
 */
function homeOf(worktree: string): Home {
  const home = envIfGranted("HOME");
  const path = home && isAbsolute(home) ? realOrSelf(home) : null;
  if (!path || path === "/") return { how: "unknown" };
  // The sandbox's /tmp is its own: a home there is out of sight already.
  if (isWithin(path, "/tmp")) return { how: "looked", path, sockets: [] };
  let scan = homeScans.get(`${worktree}\0${path}`);
  if (!scan) {
    scan = new TreeScan({
      root: path,
      maxDepth: HOME_DEPTH,
      maxFolders: MAX_HOME_FOLDERS,
      classify: (folder, depth, entries) => ({
        // Sockets live in hidden folders; the worktree's own are its business.
        enter: entries.filter((entry) =>
          entry.isDirectory && (depth > 0 || entry.name.startsWith(".")) &&
          join(folder, entry.name) !== worktree
        ).map((entry) => entry.name),
        found: entries.filter((entry) => !entry.isFile && !entry.isDirectory && !entry.isSymlink)
          .map((entry) => join(folder, entry.name)),
      }),
      // What the user may not list, a command (the same user) may not reach through either.
      unreadable: () => [],
    });
    homeScans.set(`${worktree}\0${path}`, scan);
  }
  try {
    return {
      how: "looked",
      path,
      sockets: scan.refresh().filter((socket) => !isWithin(socket, worktree)),
    };
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable || error instanceof ScanLimitError) {
      return { how: "hidden", path };
    }
    throw error;
  }
}

function isSpecial(path: string): boolean {
  try {
    const info = Deno.lstatSync(path);
    return !info.isFile && !info.isDirectory && !info.isSymlink;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return false;
    throw error;
  }
}

/** The real path; the path itself when replio may not look (bwrap resolves it the same). */
function realOrSelf(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    if (isAccessError(error)) return path;
    throw error;
  }
}

function realOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || isAccessError(error)) return null;
    throw error;
  }
}

function envIfGranted(name: string): string | undefined {
  return Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
    ? Deno.env.get(name)
    : undefined;
}

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(`${dir}/`);
}
