/**
 * Test helpers: a real temporary worktree, and running a tool through the real registry and
 * policy exactly as `/tool` does.
 * @module
 */
import { dirname, join } from "node:path";
import { waitUntil } from "./deadline.ts";
import { Config, type ConfigKey, loadConfig } from "../../src/config/mod.ts";
import { createRegistry } from "../../src/plugins/mod.ts";
import {
  createToolContext,
  type HeadlessAnswer,
  type InvokeOutcome,
  invokeTool,
  type PermissionRecord,
  ToolPolicy,
  type ToolRegistry,
} from "../../src/tools/mod.ts";
import { CollectingSink } from "../../src/ui/collecting_sink.ts";
import type { ConfirmAnswer, ConfirmRequest, Sink } from "../../src/ui/events.ts";

/** A temporary worktree directory, removed on dispose. */
export interface TempWorktree extends AsyncDisposable {
  /** Absolute, symlink-resolved path. */
  path: string;
  /** Writes a file relative to the worktree, creating parents. */
  write(relative: string, content: string | Uint8Array): Promise<void>;
  /** Reads a file relative to the worktree. */
  read(relative: string): Promise<string>;
}

/** Creates a worktree holding `files` (relative path → content). */
export async function tempWorktree(
  files: Record<string, string | Uint8Array> = {},
): Promise<TempWorktree> {
  const path = await Deno.realPath(await Deno.makeTempDir({ prefix: "replio_wt_" }));
  const write = async (relative: string, content: string | Uint8Array) => {
    const file = join(path, relative);
    await Deno.mkdir(dirname(file), { recursive: true });
    if (typeof content === "string") await Deno.writeTextFile(file, content);
    else await Deno.writeFile(file, content);
  };
  for (const [relative, content] of Object.entries(files)) await write(relative, content);
  return {
    path,
    write,
    read: (relative) => Deno.readTextFile(join(path, relative)),
    async [Symbol.asyncDispose]() {
      await removeWhenQuiet(path);
    },
  };
}

/**
 * Removes a worktree a process may still be writing into as it exits (a REPL whose tmux pane
 * was just closed saves its history): a remove that meets a file created meanwhile fails with
 * "Directory not empty", so it is tried again until the writer is done, up to the hang deadline.
 */
async function removeWhenQuiet(path: string): Promise<void> {
  await waitUntil(async () => {
    try {
      await Deno.remove(path, { recursive: true });
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return true;
      // Only a folder still being written into is worth waiting for.
      if (!/Directory not empty/.test(String(error))) throw error;
      return false;
    }
  }, `the removal of ${path}, which something kept writing into`);
}

/** A sink that records events and answers confirmations from a script. */
export class RecordingSink extends CollectingSink {
  /** Tests read the events as a renderer would, previews included. */
  override readonly showsPreviews: boolean = true;
  readonly confirmations: string[] = [];
  constructor(private readonly answers: ConfirmAnswer[] = []) {
    super();
  }
  override confirm(request: ConfirmRequest): Promise<ConfirmAnswer> {
    this.confirmations.push(request.tool);
    return Promise.resolve(this.answers.shift() ?? "no");
  }
}

/**
 * A validated config: defaults with `values` over them as flags; no file is read (the local
 * file of `worktree` is, when given, trusted as with `--trust`: these tests exercise what the
 * settings do; tests/security/trust_test.ts covers when they load).
 */
export async function configWith(
  values: Partial<Record<ConfigKey, unknown>> = {},
  worktree = "/nonexistent",
): Promise<Config> {
  return await loadConfig({
    worktree,
    paths: { global: null, local: join(worktree, ".replio", "config.yaml") },
    flags: values,
    trust: true,
  });
}

/** Options for {@link runTool}. */
export interface RunToolOptions {
  /** Config values over the defaults (no files are read). */
  config?: Partial<Record<ConfigKey, unknown>>;
  mode?: string;
  /** Headless answer for ask-gated calls; default "yes" so tests exercise the tool itself. */
  headless?: HeadlessAnswer;
  sink?: Sink;
  registry?: ToolRegistry;
  signal?: AbortSignal;
  audit?: PermissionRecord[];
  /** Host services in the tool context (the session's output store). */
  services?: Record<string, unknown>;
}

/** Runs one tool through policy and registry in `wt`; returns the whole outcome. */
export async function invokeInWorktree(
  wt: { path: string },
  name: string,
  args: unknown,
  options: RunToolOptions = {},
): Promise<InvokeOutcome> {
  const config = options.config ? await configWith(options.config) : Config.defaults();
  const registry = options.registry ?? createRegistry();
  const policy = new ToolPolicy({
    config,
    worktree: wt.path,
    mode: options.mode,
    headless: options.headless ?? "yes",
  });
  const ctx = createToolContext({
    config,
    worktree: wt.path,
    signal: options.signal ?? new AbortController().signal,
    ...(options.services ? { services: options.services } : {}),
  });
  return await invokeTool(
    {
      registry,
      policy,
      ctx,
      sink: options.sink ?? new RecordingSink(),
      audit: (r) => options.audit?.push(r),
    },
    { id: "call_1", name, arguments: args },
  );
}

/** Runs one tool and returns the text the model would get. */
export async function runTool(
  wt: { path: string },
  name: string,
  args: unknown,
  options: RunToolOptions = {},
): Promise<string> {
  return (await invokeInWorktree(wt, name, args, options)).output;
}
