/**
 * A command's shell, started before the command is known. Under bubblewrap a shell takes about
 * 10 ms to start (namespaces, mounts, a fresh `/proc`), without it about 4 ms; a spare started
 * when one command ends is waiting when the model asks for the next, which then starts in about
 * a millisecond. Each spare serves one command, so no two commands ever share a sandbox.
 *
 * A spare serves only a command whose own start would be identical: the same argv (sandbox
 * plan, cwd, the protected folders bound read-only, the sockets covered), the same environment,
 * and the same folders behind the cwd and every path the argv binds (one deleted and made again
 * since the spare started would leave the spare bound to the old one). Anything else starts
 * afresh, and the spare is ended. A sandbox that binds a stand-in (a missing `.git` or
 * `.replio`, stand_ins.ts) gets no spare, since a spare waiting between commands would keep the
 * stand-in in the user's folder; it gives the stand-in back when it exits.
 *
 * The spare reads its command from stdin, followed by a random end mark: a command cut short
 * (replio killed mid-write) lacks the mark and never runs. Spares are kept only while a
 * front-end asks for them ({@link keepSpareShells}); elsewhere (`replio tool`, tests) every
 * command starts afresh.
 * @module
 */
import { heldStandIns, releaseStandIns, releaseStandInsAfter } from "./stand_ins.ts";

/** How a command's process group starts: `setsid` with these arguments, in `cwd`, with `env`. */
export interface ShellStart {
  /** Arguments of `setsid` up to the shell: `bwrap … --` for a sandboxed command, or none. */
  prefix: string[];
  cwd: string;
  env: Record<string, string>;
}

/** Bash re-execs itself with stderr on the stdout pipe, so both arrive in the order written. */
const MERGE_SCRIPT = 'exec 2>&1; exec bash -c "$1"';

/**
 * What a spare runs: read stdin whole (`$(< …)` reads it without a fork of cat), check the end
 * mark given as `$1`, and then exactly what {@link MERGE_SCRIPT} does, with stdin closed.
 */
export const SPARE_SCRIPT = 'c=$(< /dev/stdin); [[ $c == *"$1" ]] || exit 112; c=${c%"$1"}; ' +
  'exec 2>&1 </dev/null; exec bash -c "$c"';

interface Spare {
  key: string;
  child: Deno.ChildProcess;
  endMark: string;
  exited: boolean;
}

let keeping = 0;
let spare: Spare | undefined;
let pending: ReturnType<typeof setTimeout> | undefined;

/**
 * Keeps a spare shell ready while the returned handle is held; disposing it (when the last
 * holder lets go) ends the spare. The REPL, `replio run`, `serve` and `mcp` hold one until the
 * process ends, with `waitForExit: false`: a spare ends by itself when replio exits, so they do
 * not wait the few milliseconds a sandbox takes to be torn down.
 */
export function keepSpareShells(options: { waitForExit?: boolean } = {}): AsyncDisposable {
  keeping++;
  let released = false;
  return {
    async [Symbol.asyncDispose]() {
      if (released) return;
      released = true;
      if (--keeping === 0) await dropSpare(options.waitForExit ?? true);
    },
  };
}

/**
 * Starts `command` as the leader of a new process group: in the waiting spare when it matches
 * `start`, else afresh. A spare for the next command is started once this one has ended.
 */
export function startShell(start: ShellStart, command: string): Deno.ChildProcess {
  const standIns = heldStandIns(boundPaths(start.prefix));
  const key = keeping > 0 && !standIns.length ? spareKey(start) : "";
  let child: Deno.ChildProcess;
  try {
    child = (key && takeSpare(key, command)) || spawnFresh(start, command);
  } catch (error) {
    releaseStandIns(standIns);
    throw error;
  }
  // Removed once the sandbox is wholly gone, before the caller reads the result.
  if (standIns.length) child.status.then(() => releaseStandInsAfter(standIns, child.pid), () => {});
  // The next spare starts once this command has ended and its result is on its way.
  if (key) child.status.then(() => schedule(() => prepareSpare(start, key)), () => {});
  return child;
}

/** The pid of the spare waiting for a command, if one is (for tests and diagnostics). */
export function waitingSparePid(): number | undefined {
  return spare && !spare.exited ? spare.child.pid : undefined;
}

function spawnFresh(start: ShellStart, command: string): Deno.ChildProcess {
  return spawn(start, [...start.prefix, "bash", "-c", MERGE_SCRIPT, "bash", command], "null");
}

function spawn(start: ShellStart, args: string[], stdin: "null" | "piped"): Deno.ChildProcess {
  return new Deno.Command("setsid", {
    args,
    cwd: start.cwd,
    stdin,
    stdout: "piped",
    stderr: "null",
    // The whole environment is given: inherited, withheld variables would come back.
    clearEnv: true,
    env: start.env,
  }).spawn();
}

/** The waiting spare with this key, now given `command`; undefined when there is none. */
function takeSpare(key: string, command: string): Deno.ChildProcess | undefined {
  const taken = spare;
  if (!taken) return undefined;
  spare = undefined;
  // A NUL cannot reach bash through stdin the way it would through argv: start afresh.
  if (taken.key !== key || taken.exited || command.includes("\0")) {
    void endSpare(taken);
    return undefined;
  }
  const writer = taken.child.stdin.getWriter();
  // The pipe holds far more than a command line; the write completes without the reader.
  writer.write(new TextEncoder().encode(command + taken.endMark))
    .then(() => writer.close())
    .catch(() => {
      // The spare died after the check: it exits without running anything (no end mark).
    });
  taken.child.ref();
  return taken.child;
}

/** Starts a spare for the next command like this one, unless one is waiting already. */
function prepareSpare(start: ShellStart, key: string): void {
  if (keeping === 0 || spare?.key === key) return;
  if (spare) void endSpare(spare);
  const endMark = `\n#${crypto.randomUUID()}`;
  let child: Deno.ChildProcess;
  try {
    child = spawn(start, [...start.prefix, "bash", "-c", SPARE_SCRIPT, "bash", endMark], "piped");
  } catch {
    return; // The next command starts afresh and reports what is wrong.
  }
  const ready: Spare = { key, child, endMark, exited: false };
  // A waiting spare must not keep replio alive.
  child.unref();
  child.status.then(() => ready.exited = true);
  spare = ready;
}

function schedule(prepare: () => void): void {
  clearTimeout(pending);
  pending = setTimeout(() => {
    pending = undefined;
    prepare();
  }, 0);
}

async function dropSpare(waitForExit: boolean): Promise<void> {
  clearTimeout(pending);
  pending = undefined;
  const unused = spare;
  spare = undefined;
  if (!unused) return;
  if (waitForExit) await endSpare(unused);
  else killSpare(unused);
}

/** Ends a spare and waits until it has exited. */
async function endSpare(unused: Spare): Promise<void> {
  // Waited for now, so it must hold the event loop again.
  unused.child.ref();
  killSpare(unused);
  await unused.child.stdout.cancel().catch(() => {});
  await unused.child.status;
}

/**
 * Kills the spare at once: it may still be setting up its sandbox, and has run nothing. (Closing
 * its stdin would end it too, but only once it is ready to read.)
 */
function killSpare(unused: Spare): void {
  if (unused.exited) return;
  try {
    Deno.kill(-unused.child.pid, "SIGKILL");
  } catch {
    // Just spawned, it may not lead its own group yet (setsid has not run): then it has no
    // children either, and the process alone is ended.
    try {
      unused.child.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  }
}

/** A bind of bwrap's, in any flavour: `--bind`, `--ro-bind-try`, `--dev-bind` … */
const BIND = /^--(ro-|dev-)?bind(-try)?$/;

/** The paths the argv binds: each bind's source and its destination. */
function boundPaths(prefix: string[]): string[] {
  return prefix.flatMap((arg, i) => BIND.test(arg) ? [prefix[i + 1]!, prefix[i + 2]!] : []);
}

/**
 * Everything a command's start depends on. A folder's identity comes from `stat` (device and
 * inode) of the cwd and of every path the argv binds; a folder that appears or goes away changes
 * the argv itself (`bwrapArgs` binds what it finds before each command).
 */
function spareKey(start: ShellStart): string {
  const identities = [start.cwd, ...new Set(boundPaths(start.prefix))].map((path) => {
    try {
      const info = Deno.statSync(path);
      return `${info.dev}:${info.ino}`;
    } catch {
      return "-";
    }
  });
  // Deno lists the environment in no fixed order.
  const env = Object.entries(start.env).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  return JSON.stringify([start.prefix, start.cwd, env, identities]);
}
