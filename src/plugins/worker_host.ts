/**
 * One user plugin in its own Deno Worker: started from its source with exactly the permissions
 * its manifest was narrowed to, its tools reported at start-up, calls and results as messages.
 * A call that outlives its timeout or its turn ends the Worker, which restarts on the next call.
 * @module
 */
import type { WorkerPermissions } from "./plugin_manifest.ts";
import { workerPermissionOptions } from "./plugin_manifest.ts";
import { workerBootSource } from "./worker_boot.ts";

/** How long a plugin may take to import and report its tools. */
export const PLUGIN_START_TIMEOUT_MS = 5_000;

/** A tool as the Worker reports it: its spec's data fields, and whether it has a handler. */
export interface ReportedTool {
  spec: Record<string, unknown>;
  hasHandler: boolean;
}

/** What a Worker reports once the plugin module has loaded. */
export interface PluginReady {
  name: string;
  tools: ReportedTool[];
}

/** Raised when a plugin fails to import or to report its tools in time. */
export class PluginStartError extends Error {
  override name = "PluginStartError";
}

type Message =
  | { type: "ready"; name: string; tools: ReportedTool[] }
  | { type: "load_error"; message: string }
  | { type: "result"; id: number; ok: true; value: string }
  | { type: "result"; id: number; ok: false; name: string; message: string };

/** Options for one call. */
export interface CallOptions {
  worktree: string;
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * How long a cancelled call's handler may take to see its aborted signal and return before its
   * Worker is ended (config `plugin_abort_grace`). A handler that returns sooner ends the wait
   * sooner; no fixed figure suits both Ctrl-C on a stuck call and a cleanup on a busy machine,
   * so the caller chooses.
   */
  abortGraceMs: number;
}

/** A plugin's Worker, started on demand. */
export class PluginWorker {
  readonly #source: string;
  readonly #permissions: WorkerPermissions;
  /** Where the source came from, to map `blob:` positions in errors back to it. */
  readonly #origin: string;
  #worker: Worker | null = null;
  #sourceUrl: string | null = null;
  #ready: Promise<PluginReady> | null = null;
  #pending = new Map<number, (message: Message & { type: "result" }) => void>();
  #nextId = 1;

  constructor(source: string, permissions: WorkerPermissions, origin: string) {
    this.#source = source;
    this.#permissions = permissions;
    this.#origin = origin;
  }

  /** Starts the Worker if it is not running and resolves with what the plugin reported. */
  start(): Promise<PluginReady> {
    this.#ready ??= this.#spawn();
    return this.#ready;
  }

  /** Runs one tool; a timeout or abort terminates the Worker (restarted by the next call). */
  async call(tool: string, args: unknown, options: CallOptions): Promise<string> {
    options.signal.throwIfAborted();
    await this.start();
    const worker = this.#worker!;
    const id = this.#nextId++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const ended = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(
          new Error(
            `${tool} timed out after ${options.timeoutMs / 1000}s: its plugin's Worker was ` +
              `stopped and restarts on the next call; raise tool_timeout if it needs longer`,
          ),
        );
      }, options.timeoutMs);
      onAbort = () => {
        // The handler's own signal first, so it can stop cleanly; its thread if it does not.
        worker.postMessage({ type: "abort", id });
        graceTimer = setTimeout(() => reject(options.signal.reason), options.abortGraceMs);
      };
      options.signal.addEventListener("abort", onAbort, { once: true });
    });
    const answered = new Promise<Message & { type: "result" }>((resolve) => {
      this.#pending.set(id, resolve);
    });
    worker.postMessage({ type: "call", id, tool, args, worktree: options.worktree });
    try {
      const message = await Promise.race([answered, ended]);
      if (message.ok) return message.value;
      throw workerError(message.name, message.message, this.#origin);
    } catch (error) {
      // A stuck handler can only be stopped with its thread; the next call starts a fresh one.
      if (this.#pending.has(id)) this.terminate();
      throw error;
    } finally {
      this.#pending.delete(id);
      clearTimeout(timer);
      // A handler that cleaned up in time must not leave its grace running after the call.
      clearTimeout(graceTimer);
      if (onAbort) options.signal.removeEventListener("abort", onAbort);
    }
  }

  /** Ends the Worker now; pending calls are abandoned by their callers. */
  terminate(): void {
    this.#worker?.terminate();
    for (const [id, deliver] of this.#pending) {
      deliver({ type: "result", id, ok: false, name: "Error", message: "its Worker was stopped" });
    }
    this.#pending.clear();
    this.#worker = null;
    this.#ready = null;
    if (this.#sourceUrl) URL.revokeObjectURL(this.#sourceUrl);
    this.#sourceUrl = null;
  }

  #spawn(): Promise<PluginReady> {
    const blob = (text: string) =>
      URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    this.#sourceUrl = blob(this.#source);
    const bootUrl = blob(workerBootSource(this.#sourceUrl));
    let worker: Worker;
    try {
      worker = new Worker(bootUrl, {
        type: "module",
        name: this.#origin,
        deno: { permissions: workerPermissionOptions(this.#permissions) },
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return Promise.reject(
        new PluginStartError(
          /unstable/i.test(message)
            ? `Deno needs --unstable-worker-options to give a plugin its own permissions: ` +
              `add it to the deno run command (deno.json sets it for tasks and deno compile)`
            : message,
        ),
      );
    } finally {
      URL.revokeObjectURL(bootUrl);
    }
    this.#worker = worker;
    return new Promise<PluginReady>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.terminate();
        reject(
          new PluginStartError(
            `it did not finish importing within ${PLUGIN_START_TIMEOUT_MS / 1000}s ` +
              `(a top-level await or loop that never ends?)`,
          ),
        );
      }, PLUGIN_START_TIMEOUT_MS);
      worker.onmessage = ({ data }: MessageEvent<Message>) => {
        if (data.type === "ready") {
          clearTimeout(timer);
          resolve({ name: data.name, tools: data.tools });
        } else if (data.type === "load_error") {
          clearTimeout(timer);
          reject(new PluginStartError(mapPositions(data.message, this.#origin)));
          this.terminate();
        } else if (data.type === "result") {
          const deliver = this.#pending.get(data.id);
          this.#pending.delete(data.id);
          deliver?.(data);
        }
      };
      worker.onerror = (event) => {
        // An error thrown outside a handler (a stray timer): keep replio alive, end the Worker.
        event.preventDefault();
        clearTimeout(timer);
        reject(new PluginStartError(mapPositions(event.message, this.#origin)));
        this.terminate();
      };
    });
  }
}

/**
 * A handler's error as replio reports it; a permission the manifest did not declare says so
 * instead of Deno's advice to restart with a flag.
 */
function workerError(name: string, message: string, origin: string): Error {
  const text = mapPositions(message, origin);
  if (name !== "NotCapable") return new Error(text);
  return new Deno.errors.NotCapable(
    `${text.replace(/, run again with the --allow-\w+ flag/, "")}: the plugin's Worker was not ` +
      `given that permission; declare it in the plugin's replio-plugin comment (docs/plugins.md)`,
  );
}

/** Rewrites `blob:…:2:11` in a message to `<origin>:2:11`, and drops the code frame. */
function mapPositions(message: string, origin: string): string {
  // The plugin module's blob URL comes first; the boot module's follows in a stack.
  const position = /blob:\S*?[0-9a-f-]{36}:(\d+):(\d+)/i.exec(message);
  const first = message.replace(/^TypeError: (SyntaxError: )/, "$1").split("\n")[0]!;
  return position ? `${first} at ${origin}:${position[1]}:${position[2]}` : first;
}
