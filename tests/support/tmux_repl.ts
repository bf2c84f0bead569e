/**
 * The tmux harness for REPL tests: replio runs inside tmux (its own server socket, a fixed
 * window size), keys go in with `send-keys`, the screen comes back with `capture-pane`, and
 * the model is the scripted mock server on 127.0.0.1. Waiting polls the screen until the
 * expected text appears, with a deadline.
 * @module
 */
import { shellQuote } from "../../src/tools/shell_quote.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type MockModel,
  type MockModelOptions,
  type MockTurn,
  startMockModel,
} from "./mock_model.ts";
import { tempWorktree } from "./worktree.ts";
import { HANG_MS } from "./deadline.ts";
import { sessionIsAlive } from "./process_state.ts";

/** The entry point under test. */
export const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const WIDTH = 100;
const HEIGHT = 40;
/**
 * How long a wait polls before it fails with the screen: the hang deadline, as a REPL that
 * starts, answers or redraws takes longer on a busy machine but never this long.
 */
export const DEADLINE_MS = HANG_MS;
/** How often a wait looks at the screen. */
export const POLL_MS = 50;

/** A replio REPL running in its own tmux server. */
export class TmuxRepl implements AsyncDisposable {
  readonly #socket: string;

  private constructor(socket: string) {
    this.#socket = socket;
  }

  /**
   * Starts `replio [args]` in `worktree` and waits for its first prompt (or for `ready`).
   * Colour is on unless `noColor`: the test runner's own NO_COLOR is not passed on.
   */
  static async start(
    worktree: string,
    args: string[] = [],
    options: {
      width?: number;
      noColor?: boolean;
      waitForPrompt?: boolean;
      ready?: string;
      /** Deno flags before the entry point; default `-A`. */
      denoFlags?: string[];
      /** What runs replio instead of `deno run … main.ts` (e.g. `deno task start`); `args` follow. */
      command?: string[];
      /** More variables for replio's environment (e.g. `DENO_DIR`). */
      env?: Record<string, string>;
    } = {},
  ): Promise<TmuxRepl> {
    const socket = `replio_test_${crypto.randomUUID().slice(0, 8)}`;
    const repl = new TmuxRepl(socket);
    const env = {
      XDG_CONFIG_HOME: join(worktree, ".test-xdg"),
      OPENAI_BASE_URL: "",
      OPENAI_API_KEY: "",
      RUST_BACKTRACE: "0",
      ...options.env,
    };
    const flags = options.denoFlags ?? ["-A"];
    const command = [
      ...(options.command ?? [Deno.execPath(), "run", ...flags, "--no-prompt", MAIN]),
      ...args,
    ].map(shellQuote);
    await repl.tmux(
      "new-session",
      "-d",
      "-x",
      String(options.width ?? WIDTH),
      "-y",
      String(HEIGHT),
      "-c",
      worktree,
      ...Object.entries(env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
      (options.noColor ? "env NO_COLOR=1 " : "env -u NO_COLOR ") + command.join(" "),
    );
    // Keep the pane after replio exits, so a test can see that it did.
    await repl.tmux("set-option", "-g", "remain-on-exit", "on");
    if (options.ready !== undefined) await repl.waitFor(options.ready);
    else if (options.waitForPrompt !== false) await repl.waitForPrompt();
    return repl;
  }

  /** Sends tmux key names (`Enter`, `C-c`, `Up`, `Tab`). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux("send-keys", "-t", "0", ...keys);
  }

  /** Types `text` literally (no key names). */
  async type(text: string): Promise<void> {
    await this.tmux("send-keys", "-t", "0", "-l", text);
  }

  /** Types a line and presses Enter. */
  async enter(text: string): Promise<void> {
    await this.type(text);
    await this.keys("Enter");
  }

  /**
   * The visible screen plus scrollback, lines joined where the terminal wrapped them;
   * `raw` keeps the terminal's own wrapping and the colour sequences.
   */
  async screen(raw = false): Promise<string> {
    const how = raw ? ["-e"] : ["-J"];
    return await this.tmux("capture-pane", "-p", ...how, "-t", "0", "-S", "-200");
  }

  /** Polls the screen until `expected` appears; returns the screen. */
  async waitFor(expected: string | RegExp, what = String(expected)): Promise<string> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const screen = await this.screen();
      const found = typeof expected === "string"
        ? screen.includes(expected)
        : expected.test(screen);
      if (found) return screen;
      if (Date.now() > deadline) {
        throw new Error(
          `Timed out after ${DEADLINE_MS / 1000} s waiting for ${what}; the screen was:\n${screen}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Waits until the last non-empty line is an empty prompt (`>`, `plan >`). */
  async waitForPrompt(): Promise<string> {
    return await this.waitFor(/(^|\n)([\w-]+ )?>\s*$/, "an empty prompt");
  }

  /** Waits until replio has exited (the pane stays, marked dead). */
  async waitForExit(): Promise<void> {
    const deadline = Date.now() + DEADLINE_MS;
    while ((await this.tmux("display-message", "-p", "-t", "0", "#{pane_dead}")).trim() !== "1") {
      if (Date.now() > deadline) {
        const screen = await this.screen();
        throw new Error(
          `Timed out after ${DEADLINE_MS / 1000} s waiting for replio to exit:\n${screen}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** Pastes `text` as a terminal does (bracketed, when the program asked for it). */
  async paste(text: string): Promise<void> {
    const file = await Deno.makeTempFile({ prefix: "replio_paste_" });
    try {
      await Deno.writeTextFile(file, text);
      await this.tmux("load-buffer", file);
      await this.tmux("paste-buffer", "-p", "-d", "-t", "0");
    } finally {
      await Deno.remove(file);
    }
  }

  async tmux(...args: string[]): Promise<string> {
    const output = await new Deno.Command("tmux", { args: ["-L", this.#socket, ...args] })
      .output();
    const text = new TextDecoder().decode(output.stdout);
    if (!output.success) {
      throw new Error(`tmux ${args[0]} failed: ${new TextDecoder().decode(output.stderr)}`);
    }
    return text;
  }

  /**
   * Ends tmux and waits until replio and whatever else ran in its pane (the pane's session)
   * have exited: killing the server only sends them a hangup, and a replio still saving its
   * session would write into a worktree the test is removing ("Directory not empty").
   */
  async [Symbol.asyncDispose](): Promise<void> {
    const pane = await this.tmux("display-message", "-p", "-t", "0", "#{pane_pid}")
      .then((text) => Number(text.trim()), () => 0);
    await new Deno.Command("tmux", { args: ["-L", this.#socket, "kill-server"] }).output();
    if (pane > 0) {
      await waitUntil(
        async () => !(await sessionIsAlive(pane)),
        `the processes of the REPL's terminal (session ${pane}) to exit`,
      );
    }
  }
}

/** The named variables of this process's environment that are set. */
export function passEnv(...names: string[]): Record<string, string> {
  return Object.fromEntries(names.flatMap((n) => {
    const value = Deno.env.get(n);
    return value === undefined ? [] : [[n, value]];
  }));
}

// The product's own quoting, for the tests that type commands.
export { shellQuote };

/** A worktree with a README, and the mock model answering `turns`. */
export async function setup(turns: MockTurn[], mockOptions: MockModelOptions = {}) {
  const wt = await tempWorktree({ "README.md": "# Demo\n\nHello readme.\n" });
  const mock = startMockModel(turns, mockOptions);
  const args = ["--base-url", mock.baseUrl, "--model", "mock-model"];
  return {
    wt,
    mock,
    args,
    async [Symbol.asyncDispose]() {
      await mock.close();
      await wt[Symbol.asyncDispose]();
    },
  };
}

/** Every record of the worktree's one session file. */
export async function sessionRecords(worktree: string): Promise<Record<string, unknown>[]> {
  const dir = join(worktree, ".replio", "sessions");
  const files = (await Array.fromAsync(Deno.readDir(dir))).filter((e) => e.name.endsWith(".jsonl"));
  assert.equal(files.length, 1);
  const text = await Deno.readTextFile(join(dir, files[0]!.name));
  return text.trim().split("\n").map((line) => JSON.parse(line));
}

/** The last user message of the mock's `request`-th chat request. */
export function lastUserContent(mock: MockModel, request: number): unknown {
  return mock.requests[request]!.messages.findLast((m) => m.role === "user")?.content;
}

/** Polls `condition` until it holds, with the test deadline. */
export async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${DEADLINE_MS / 1000} s waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
