/**
 * The interactive REPL: reads messages and slash commands, runs turns through the engine with
 * the terminal renderer, and keeps the session, mode, model and history of one worktree.
 * Ctrl-C cancels a running turn; at an empty prompt it explains how to quit, and a second one
 * (or Ctrl-D, or /exit) quits.
 * @module
 */
import { resolve } from "../fs/path.ts";
import type { Config } from "../config/mod.ts";
import type { Agent } from "../engine/mod.ts";
import type { Provider } from "../providers/types.ts";
import {
  closestSessions,
  listSessions,
  openSession,
  type Session,
  sessionFile,
} from "../session/mod.ts";
import {
  createToolContext,
  invokeTool,
  SessionApprovals,
  ToolPolicy,
  type ToolRegistry,
} from "../tools/mod.ts";
import type { Sink } from "../ui/events.ts";
import { MarkdownStream, reflowMarkdown, wrapText } from "../ui/markdown.ts";
import { createStyles, type Styles } from "../ui/styles.ts";
import { type TerminalDisplay, TerminalSink } from "../ui/terminal.ts";
import type { TextWriter } from "../ui/writer.ts";
import { COMMANDS, runCommand } from "./commands.ts";
import { completeLine } from "./completion.ts";
import type { ReplContext, SlashCommand } from "./context.ts";
import { appendHistory, historyPath, loadHistory } from "./history_file.ts";
import { describeAccessError, isAccessError } from "../fs/access_error.ts";
import { LineEditor } from "./line_editor.ts";
import { findMentions } from "./mentions.ts";
import { recentExchanges } from "./recent_exchanges.ts";
import type { PagerTerminal } from "./output_pager.ts";
import { pickSession } from "./session_picker.ts";
import { formatStatus } from "./status_line.ts";
import { parseSlash } from "./slash.ts";
import { formatTurns } from "./session_commands.ts";

/** What the REPL is given by the command line (src/cli/repl.ts wires it). */
export interface ReplHost {
  version: string;
  worktree: string;
  config: Config;
  registry: ToolRegistry;
  /** Start-up warnings to show under the banner (a tools.deny entry that names no tool). */
  notices?: readonly string[];
  /** `--mode`; undefined starts in the config's `mode`. */
  mode: string | undefined;
  /** `--session` or `--continue`: continue or create this session. */
  sessionId: string | undefined;
  /** `--resume`: choose the session from a list first (a terminal only). */
  pickSession: boolean;
  /** Connects to the model (`model` overrides the config's); throws with how to configure. */
  connect(config: Config, model: string | undefined): Promise<Provider>;
  /** Builds the root agent exactly as `replio run` does. */
  createAgent(
    config: Config,
    parts: { provider: Provider; session: Session; policy: ToolPolicy; sink: Sink },
  ): Agent;
  /** Re-reads the configuration files (command-line flags still win). */
  loadConfig(): Promise<Config>;
  /** `replio config get|set|unset` for this worktree; returns its exit code. */
  runConfig(
    action: string,
    key: string | undefined,
    value: string | undefined,
    global: boolean,
  ): Promise<number>;
}

/** The terminal the REPL talks to. */
export interface ReplTerminal {
  /** stdin is a terminal: full line editor, spinner, escape codes allowed. */
  isTerminal: boolean;
  color: boolean;
  out: TextWriter;
  /** Columns; 0 when output is not a terminal (nothing is wrapped). */
  width(): number;
}

/** Config keys that choose the provider: changing one reconnects. */
const PROVIDER_KEYS = ["provider", "model", "base_url", "api_key_env"] as const;

/** Runs the REPL until the person quits; returns the exit code. */
export async function startRepl(host: ReplHost, terminal: ReplTerminal): Promise<number> {
  const repl = new Repl(host, terminal);
  return await repl.run();
}

/** The REPL's state and the actions slash commands take on it. */
class Repl implements ReplContext {
  readonly #host: ReplHost;
  readonly #terminal: ReplTerminal;
  readonly styles: Styles;
  readonly commands: readonly SlashCommand[] = COMMANDS;
  /** "Always allow" rules accepted at confirm prompts; they outlive mode and model changes. */
  readonly approvals = new SessionApprovals();
  #config: Config;
  #policy: ToolPolicy;
  #provider: Provider | null = null;
  #modelProblem = "";
  /** Set by /model: kept when the config is reloaded. */
  #modelOverride: string | undefined;
  #session: Session | null = null;
  #mentionCount = 0;
  /** The endpoint's models, for Tab after /model; filled in the background after start. */
  #models: string[] = [];
  /** Tokens the last request used, for the status line. */
  #contextTokens = 0;
  /** What this REPL's requests cost, when the provider reports it. */
  #cost: number | null = null;
  #agent: Agent | null = null;
  #sink: TerminalSink | null = null;
  #editor: LineEditor | null = null;
  /** Aborts what runs now (a turn, /tool, /compact); null at the prompt. */
  #abort: (() => void) | null = null;
  #exitRequested = false;
  /** History appends in order; awaited before exit. */
  #historyWrites: Promise<void> = Promise.resolve();
  #historyDisabled = false;
  #sessionsNoticed = false;

  constructor(host: ReplHost, terminal: ReplTerminal) {
    this.#host = host;
    this.#terminal = terminal;
    this.styles = createStyles(terminal.color);
    this.#config = host.config;
    this.#policy = new ToolPolicy({
      config: host.config,
      worktree: host.worktree,
      mode: host.mode,
      approvals: this.approvals,
    });
  }

  get worktree(): string {
    return this.#host.worktree;
  }
  get config(): Config {
    return this.#config;
  }
  get registry(): ToolRegistry {
    return this.#host.registry;
  }
  get policy(): ToolPolicy {
    return this.#policy;
  }
  get model(): string | null {
    return this.#provider?.model ?? null;
  }
  get modelProblem(): string {
    return this.#modelProblem;
  }
  get session(): Session {
    return this.#session!;
  }
  get sink(): TerminalSink {
    return this.#sink!;
  }
  get width(): number {
    return this.#terminal.width();
  }

  async run(): Promise<number> {
    const historyFile = historyPath(this.worktree);
    const historySize = this.#config.get("history_size");
    const [history] = await Promise.all([
      loadHistory(historyFile, historySize).catch((error: unknown) => {
        if (!isAccessError(error)) throw error;
        this.#historyOff(error);
        return [];
      }),
      this.#connect(),
    ]);
    const editor = new LineEditor({
      terminal: this.#terminal.isTerminal,
      history,
      historySize,
      complete: (line) =>
        completeLine(line, {
          commands: this.commands.map((c) => c.name),
          argumentsOf: (name) => this.commands.find((c) => c.name === name)?.complete?.(this),
          worktree: this.worktree,
          home: readHome(),
        }),
      onEntry: (entry) => {
        if (this.#historyDisabled) return;
        this.#historyWrites = this.#historyWrites.then(() => appendHistory(historyFile, entry))
          .catch((error) => {
            if (isAccessError(error)) this.#historyOff(error);
            else this.printError(`Cannot save input history: ${error}`);
          });
      },
    });
    this.#editor = editor;
    const sessionId = this.#host.pickSession
      ? await this.#pickSession(editor)
      : this.#host.sessionId;
    this.#session = await openSession(this.worktree, {
      config: this.#config,
      id: sessionId,
      model: this.model ?? undefined,
      onUnwritable: (message) => this.#sessionsOff(message),
    });
    this.#sink = new TerminalSink({
      out: this.#terminal.out,
      styles: this.styles,
      width: () => this.#terminal.width(),
      animate: this.#terminal.isTerminal,
      display: displayOf(this.#config),
      prompter: editor,
      onInterrupt: () => this.#abort?.(),
    });
    const onTerminate = () => {
      this.#abort?.();
      this.#shutdown();
      Deno.exit(143);
    };
    Deno.addSignalListener("SIGTERM", onTerminate);
    // For Tab after /model; a server without /models just completes nothing.
    this.listModels().catch(() => {});
    try {
      this.#printBanner();
      await this.#loop(editor);
    } finally {
      Deno.removeSignalListener("SIGTERM", onTerminate);
      await this.#historyWrites;
      this.#shutdown();
    }
    return 0;
  }

  async #loop(editor: LineEditor): Promise<void> {
    let quitArmed = false;
    while (!this.#exitRequested) {
      const input = await editor.read(this.#promptText(), this.styles.dim("… "));
      if (input.kind === "eof") break;
      if (input.kind === "interrupt") {
        if (quitArmed) break;
        quitArmed = true;
        this.print("(To quit, press Ctrl-C again or Ctrl-D, or type /exit)", this.styles.dim);
        continue;
      }
      quitArmed = false;
      if (!input.text.trim()) continue;
      const slash = parseSlash(input.text);
      try {
        if (slash) await runCommand(this, slash);
        else await this.#turn(input.text);
      } catch (error) {
        // A failed command or a bug in the engine must not end the REPL and lose the prompt.
        this.sink.settle();
        this.printError(describeError(error));
      }
    }
  }

  async #turn(prompt: string): Promise<void> {
    if (!this.#provider) await this.#connect();
    const provider = this.#provider;
    if (!provider) {
      this.printError(this.#modelProblem);
      this.print(this.#noModelHint(), this.styles.dim);
      return;
    }
    const agent = this.#currentAgent(provider);
    if (!(await this.#fits(prompt, agent.contextTokens))) return;
    const result = await this.cancellable(async (signal) => {
      this.sink.beginTurn();
      const message = prompt + await this.#attachMentions(prompt, signal);
      return await agent.runTurn(message, signal);
    });
    this.#contextTokens = agent.contextTokens;
    if (result.usage.cost !== undefined) this.#cost = (this.#cost ?? 0) + result.usage.cost;
    this.#printStatus();
  }

  /**
   * Warns before sending a message that cannot fit the model's window with what the context
   * already holds (estimated at 4 characters a token) and asks whether to send it anyway.
   */
  async #fits(prompt: string, contextTokens: number): Promise<boolean> {
    const window = this.#config.get("context_window");
    const estimate = Math.ceil(prompt.length / CHARS_PER_TOKEN);
    if (contextTokens + estimate <= window) return true;
    this.print(
      `! This message is about ${estimate.toLocaleString("en-US")} tokens and the context holds ` +
        `${contextTokens.toLocaleString("en-US")}: together they exceed context_window ` +
        `(${window.toLocaleString("en-US")}): /compact first, shorten it, or send it anyway`,
      this.styles.yellow,
    );
    const answer = await this.#editor!.question(`${this.styles.yellow("?")} Send anyway? [y/N] `);
    return answer.kind === "line" && /^\s*y(es)?\s*$/i.test(answer.text);
  }

  /**
   * Reads the files a message mentions as `@path` through the policy (file_read, exactly as
   * `/tool` would: an activity line, and a file outside the worktree asks) and returns them as
   * blocks to append. A mention that names no file (a handle, a folder) is left as text.
   */
  async #attachMentions(prompt: string, signal: AbortSignal): Promise<string> {
    let attached = "";
    for (const path of findMentions(prompt)) {
      const isFile = await Deno.stat(resolve(this.worktree, path)).then(
        (info) => info.isFile,
        () => false,
      );
      if (!isFile || signal.aborted) continue;
      const outcome = await invokeTool({
        registry: this.registry,
        policy: this.#policy,
        ctx: createToolContext({ config: this.#config, worktree: this.worktree, signal }),
        sink: this.sink,
        audit: (record) => this.session.appendPermission(record),
      }, { id: `mention_${++this.#mentionCount}`, name: ATTACH_TOOL, arguments: { path } });
      if (!outcome.isError) {
        attached += `\n\n<attached path="${path}">\n${outcome.output}\n</attached>`;
      }
    }
    return attached;
  }

  #printStatus(): void {
    const status = formatStatus({
      model: this.model,
      mode: this.#policy.mode,
      contextTokens: this.#contextTokens,
      contextWindow: this.#config.get("context_window"),
      cost: this.#cost,
    }, this.#terminal.width());
    this.#terminal.out.write(this.styles.dim(status) + "\n");
  }

  #currentAgent(provider: Provider): Agent {
    this.#agent ??= this.#host.createAgent(this.#config, {
      provider,
      session: this.session,
      policy: this.#policy,
      sink: this.sink,
    });
    return this.#agent;
  }

  print(text: string, style: (line: string) => string = (line) => line, indent = "  "): void {
    const width = this.#terminal.width();
    const lines = text.split("\n").flatMap((line) => wrapText(line, width, indent));
    this.#terminal.out.write(lines.map((line) => style(line) + "\n").join(""));
  }

  printMarkdown(text: string): void {
    const markdown = new MarkdownStream({
      styles: this.styles,
      width: () => this.#terminal.width(),
    });
    this.#terminal.out.write(markdown.push(reflowMarkdown(text)) + markdown.end());
  }

  /** A read-only worktree: history stays in memory, said once. */
  #historyOff(error: Error): void {
    if (this.#historyDisabled) return;
    this.#historyDisabled = true;
    this.print(`history is off: ${describeAccessError(error)}`, this.styles.dim);
  }

  /** A session that cannot be saved: said once per REPL, not once per /new. */
  #sessionsOff(message: string): void {
    if (this.#sessionsNoticed) return;
    this.#sessionsNoticed = true;
    this.print(message, this.styles.dim);
  }

  printError(message: string): void {
    this.print(`! ${message}`, this.styles.red);
  }

  async cancellable<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    this.#abort = abort;
    this.#editor?.hold(abort);
    try {
      return await work(controller.signal);
    } finally {
      this.#abort = null;
      this.#editor?.release();
    }
  }

  setMode(name: string): void {
    this.#policy = new ToolPolicy({
      config: this.#config,
      worktree: this.worktree,
      mode: name,
      approvals: this.approvals,
    });
    this.#agent = null;
  }

  get knownModels(): readonly string[] {
    return this.#models;
  }

  async listModels(): Promise<string[] | null> {
    if (!this.#provider?.listModels) return null;
    this.#models = await this.#provider.listModels();
    return this.#models;
  }

  async setModel(name: string): Promise<void> {
    this.#provider = await this.#host.connect(this.#config, name);
    this.#modelOverride = name;
    this.#modelProblem = "";
    this.#agent = null;
  }

  runConfig(
    action: string,
    key: string | undefined,
    value: string | undefined,
    global: boolean,
  ): Promise<number> {
    return this.#host.runConfig(action, key, value, global);
  }

  async reloadConfig(): Promise<void> {
    const previous = this.#config;
    this.#config = await this.#host.loadConfig();
    this.sink.configure(displayOf(this.#config));
    try {
      this.setMode(this.#policy.mode);
    } catch (error) {
      this.printError(`${error instanceof Error ? error.message : error}: back to mode default`);
      this.setMode("default");
    }
    const providerChanged = PROVIDER_KEYS.some((key) =>
      JSON.stringify(previous.get(key)) !== JSON.stringify(this.#config.get(key))
    );
    if (providerChanged) {
      if (this.#config.get("model") !== previous.get("model")) this.#modelOverride = undefined;
      await this.#connect();
      this.print(this.model ? `Model ${this.model}` : this.#modelProblem, this.styles.dim);
    }
  }

  async newSession(): Promise<void> {
    await this.#replaceSession(undefined);
  }

  async loadSession(id: string): Promise<void> {
    try {
      await Deno.stat(sessionFile(this.worktree, id));
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      const near = (await closestSessions(this.worktree, id)).slice(0, 3).map((s) => `"${s.id}"`);
      throw new Deno.errors.NotFound(
        `Cannot load session "${id}": no such session here: ` +
          (near.length ? `did you mean ${near.join(" or ")}? ` : "") + "(/session list)",
      );
    }
    await this.#replaceSession(id);
  }

  async sendMessage(text: string): Promise<void> {
    await this.#turn(text);
  }

  async compact(signal: AbortSignal): Promise<string | null> {
    if (!this.#provider) throw new Error(this.#modelProblem);
    return await this.#currentAgent(this.#provider).compact(signal);
  }

  pagerTerminal(): PagerTerminal | null {
    const editor = this.#editor;
    if (!editor?.isTerminal) return null;
    return {
      out: this.#terminal.out,
      styles: this.styles,
      size: () => Deno.consoleSize(),
      readKeys: (onKeys) => editor.readKeys(onKeys),
    };
  }

  clearScreen(): void {
    if (this.#terminal.isTerminal) this.#terminal.out.write("\x1b[2J\x1b[3J\x1b[H");
  }

  requestExit(): void {
    this.#exitRequested = true;
  }

  async #replaceSession(id: string | undefined): Promise<void> {
    const next = await openSession(this.worktree, {
      config: this.#config,
      id,
      model: this.model ?? undefined,
      onUnwritable: (message) => this.#sessionsOff(message),
    });
    this.#session?.close();
    this.#session = next;
    this.#agent = null;
  }

  /** `--resume`: the picker in a terminal; without one, a note and a new session. */
  async #pickSession(editor: LineEditor): Promise<string | undefined> {
    const sessions = (await listSessions(this.worktree)).filter((s) => !s.parent);
    if (sessions.length === 0) {
      this.print("No sessions to resume in this worktree yet: starting a new one", this.styles.dim);
      return undefined;
    }
    if (!editor.isTerminal) {
      this.printError("Cannot show the session picker without a terminal: use --session ID");
      return undefined;
    }
    const id = await pickSession(sessions, {
      out: this.#terminal.out,
      styles: this.styles,
      width: this.#terminal.width(),
      readKeys: (onKeys) => editor.readKeys(onKeys),
    });
    return id ?? undefined;
  }

  /** Re-prints the last exchanges of a resumed session, so the next message has its context. */
  showRecent(): void {
    const s = this.styles;
    for (const exchange of recentExchanges(this.session.history(), RECENT_EXCHANGES)) {
      this.print(`> ${firstLines(exchange.prompt, PROMPT_PREVIEW_LINES)}`, s.cyan, "    ");
      const tools = exchange.toolCalls
        ? s.dim(`(${exchange.toolCalls} tool call${exchange.toolCalls === 1 ? "" : "s"}) `)
        : "";
      if (tools) this.print(tools);
      if (exchange.answer) this.printMarkdown(firstLines(exchange.answer, ANSWER_PREVIEW_LINES));
    }
    // A failed turn's prompt is kept in the session, not in the history: show it, unanswered.
    const unanswered = this.session.unansweredPrompt;
    if (unanswered !== null) {
      this.print(`> ${firstLines(unanswered, PROMPT_PREVIEW_LINES)}`, s.cyan, "    ");
      this.print("(no reply: send it again to retry)", s.dim);
    }
  }

  /** Connects to the model; on failure the REPL runs on without one and says why. */
  async #connect(): Promise<void> {
    try {
      this.#provider = await this.#host.connect(this.#config, this.#modelOverride);
      this.#modelProblem = "";
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      this.#provider = null;
      this.#modelProblem = error.message;
    }
    this.#agent = null;
  }

  #promptText(): string {
    const mode = this.#policy.mode === "default" ? "" : this.styles.yellow(this.#policy.mode) + " ";
    return `${mode}${this.styles.cyan(">")} `;
  }

  #printBanner(): void {
    const s = this.styles;
    const model = this.model ? `model ${this.model}` : s.yellow("no model configured");
    this.print(
      `${s.bold(`replio ${this.#host.version}`)} · ${model} · mode ${this.#policy.mode}`,
    );
    this.print(`worktree ${this.worktree}`, s.dim);
    if (this.session.turns > 0) {
      this.print(
        `continuing session ${this.session.id} (${formatTurns(this.session.turns)})`,
        s.dim,
      );
      this.showRecent();
    }
    for (const warning of this.session.warnings) this.print(warning, s.yellow);
    for (const notice of this.#host.notices ?? []) this.print(`warning: ${notice}`, s.yellow);
    if (!this.model) {
      this.print(this.#modelProblem, s.dim);
      this.print(this.#noModelHint(), s.dim);
    }
    this.print("/help for commands · Ctrl-C or Esc cancels · Ctrl-D quits", s.dim);
  }

  /**
   * What to do without a model. With a server configured the problem's own fix says it (the
   * key, the network, the page that answered); naming base_url or model again would mislead.
   */
  #noModelHint(): string {
    return this.#config.get("base_url") ? WITHOUT_MODEL : NO_MODEL_HINT;
  }

  #shutdown(): void {
    this.#sink?.dispose();
    this.#editor?.close();
    const session = this.#session;
    if (session && session.turns > 0 && session.unwritable === null) {
      this.print(`Session ${session.id} saved: replio --session ${session.id}`, this.styles.dim);
    }
    session?.close();
  }
}

/** The tool `@path` attaches files with, as `/tool` would call it. */
const ATTACH_TOOL = "file_read";

/** The rough size of a token, for the warning before a message that will not fit. */
const CHARS_PER_TOKEN = 4;

/** A resumed session re-prints this many exchanges, each cut to a few lines. */
const RECENT_EXCHANGES = 2;
const PROMPT_PREVIEW_LINES = 3;
const ANSWER_PREVIEW_LINES = 12;

/** The first `count` lines of `text`, with a mark when some were left out. */
function firstLines(text: string, count: number): string {
  const lines = text.trim().split("\n");
  return lines.length <= count
    ? lines.join("\n")
    : `${lines.slice(0, count).join("\n")}\n… (${lines.length - count} more lines)`;
}

const WITHOUT_MODEL = "/tool and /help work without a model";
const NO_MODEL_HINT = "Set one with /config base_url http://HOST:PORT/v1 and /config model NAME " +
  `(or OPENAI_BASE_URL); ${WITHOUT_MODEL}`;

/** The display keys of the config, as the terminal renderer takes them. */
export function displayOf(config: Config): TerminalDisplay {
  return {
    toolStatusVisible: config.get("tool_status_visible"),
    glyphLines: config.get("glyph_lines"),
    glyphParams: config.get("glyph_params"),
    showErrors: config.get("show_errors"),
    showNotes: config.get("show_notes"),
    showThinking: config.get("show_thinking"),
  };
}

/** Errors whose message is written for people (bad config, usage, the model server); bugs print a stack. */
const EXPECTED_ERRORS = [
  "ConfigError",
  "UsageError",
  "ProviderError",
  "RangeError",
  "NotFound",
  "AbortError",
];

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // A missing grant or a read-only file system is the setup, not a bug: no stack.
  if (isAccessError(error as unknown)) return describeAccessError(error);
  return EXPECTED_ERRORS.includes(error.name) ? error.message : error.stack ?? error.message;
}

/** `$HOME` for `~/` completion, only when reading it is already permitted. */
function readHome(): string | null {
  const granted = Deno.permissions.querySync({ name: "env", variable: "HOME" }).state === "granted";
  return granted ? Deno.env.get("HOME") ?? null : null;
}
