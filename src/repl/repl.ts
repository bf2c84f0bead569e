/**
 * The interactive REPL: the state of one worktree's REPL (config, mode, model, session) and the
 * actions slash commands take on it, wired to the parts that do the work: the input loop
 * (input_loop.ts), turns (turn_runner.ts), output and late warnings (repl_output.ts), the
 * session (session_slot.ts) and the model (model_link.ts).
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { Agent } from "../engine/mod.ts";
import type { Provider } from "../providers/types.ts";
import { recordLastUsed, type Session } from "../session/mod.ts";
import { modeNames, SessionApprovals, ToolPolicy, type ToolRegistry } from "../tools/mod.ts";
import { createStyles, type Styles } from "../ui/styles.ts";
import { TerminalSink } from "../ui/terminal.ts";
import { noModelHint, printBanner, printRecent } from "./banner.ts";
import { COMMANDS } from "./commands.ts";
import { completeLine } from "./completion.ts";
import type { ReplContext, SlashCommand } from "./context.ts";
import { displayOf } from "./display_of.ts";
import { InputHistory } from "./input_history.ts";
import { runInputLoop } from "./input_loop.ts";
import { LineEditor } from "./line_editor.ts";
import { describeMode, nextMode } from "./mode_cycle.ts";
import { ModelLink } from "./model_link.ts";
import type { PickerTerminal } from "./list_picker.ts";
import type { PagerTerminal } from "./output_pager.ts";
import type { ReplHost, ReplTerminal } from "./repl_host.ts";
import { ReplOutput } from "./repl_output.ts";
import { chooseSessionToResume, type SessionSettings, SessionSlot } from "./session_slot.ts";
import { TurnRunner } from "./turn_runner.ts";

/** Runs the REPL until the person quits; returns the exit code. */
export async function startRepl(host: ReplHost, terminal: ReplTerminal): Promise<number> {
  const repl = new Repl(host, terminal);
  return await repl.run();
}

/** The REPL's state and the actions slash commands take on it. */
class Repl implements ReplContext {
  readonly #host: ReplHost;
  readonly #terminal: ReplTerminal;
  readonly #output: ReplOutput;
  readonly #model: ModelLink;
  readonly #sessions: SessionSlot;
  readonly #history: InputHistory;
  readonly styles: Styles;
  readonly commands: readonly SlashCommand[] = COMMANDS;
  /** "Always allow" rules accepted at confirm prompts; they outlive mode and model changes. */
  readonly approvals = new SessionApprovals();
  #config: Config;
  #policy: ToolPolicy;
  #agent: Agent | null = null;
  #sink: TerminalSink | null = null;
  #editor: LineEditor | null = null;
  #turns: TurnRunner | null = null;
  /** Aborts what runs now (a turn, /tool, /compact); null at the prompt. */
  #abort: (() => void) | null = null;
  #exitRequested = false;

  constructor(host: ReplHost, terminal: ReplTerminal) {
    this.#host = host;
    this.#terminal = terminal;
    this.styles = createStyles(terminal.color);
    this.#output = new ReplOutput(terminal, this.styles);
    this.#model = new ModelLink(host.connect);
    // These come while a turn writes (its first append fails): they wait for the prompt.
    const dim = (text: string) => this.#output.printLater(text, this.styles.dim);
    this.#sessions = new SessionSlot(host.worktree, dim);
    this.#history = new InputHistory(host.worktree, {
      off: dim,
      error: (message) => this.#output.printLater(`! ${message}`, this.styles.red),
    });
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
    return this.#model.model;
  }
  get modelProblem(): string {
    return this.#model.problem;
  }
  get session(): Session {
    return this.#sessions.current;
  }
  get sink(): TerminalSink {
    return this.#sink!;
  }
  get width(): number {
    return this.#output.width;
  }
  get isExitRequested(): boolean {
    return this.#exitRequested;
  }

  async run(): Promise<number> {
    const historySize = this.#config.get("history_size");
    const [history] = await Promise.all([this.#history.load(historySize), this.#connect()]);
    const editor = this.#openEditor(history, historySize);
    const sessionId = this.#host.pickSession
      ? await this.#chooseResume(editor)
      : this.#host.sessionId;
    await this.#sessions.open(sessionId, this.#sessionSettings());
    await this.#useSessionModel();
    this.#sink = new TerminalSink({
      out: this.#output.writer,
      styles: this.styles,
      width: () => this.width,
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
      printBanner(this, { version: this.#host.version, notices: this.#host.notices ?? [] });
      // From here warnings that arrive on their own go above the prompt, not over it.
      this.#host.lateNotices?.takeOver((message) => this.#output.notice(message));
      await runInputLoop(this, editor, this.#host.firstPrompt);
    } finally {
      Deno.removeSignalListener("SIGTERM", onTerminate);
      await this.#history.written();
      // Held while the last turn wrote (or the last history write failed): shown, not lost.
      this.#output.showHeld();
      this.#host.lateNotices?.takeOver(null);
      this.#shutdown();
    }
    return 0;
  }

  /** The line editor, with the worktree's history and Tab completion; output goes above it. */
  #openEditor(history: string[], historySize: number): LineEditor {
    const editor = new LineEditor({
      terminal: this.#terminal.isTerminal,
      history,
      historySize,
      complete: (line) =>
        completeLine(line, {
          commands: this.commands.map((c) => c.name),
          argumentsOf: (name) => this.commands.find((c) => c.name === name)?.complete?.(this),
          argumentsAfter: (name, first) =>
            this.commands.find((c) => c.name === name)?.completeNext?.(this, first),
          worktree: this.worktree,
          home: readHome(),
        }),
      onEntry: (entry) => this.#history.append(entry),
      onShiftTab: () => this.#cycleMode(editor),
    });
    this.#editor = editor;
    this.#output.attach(editor);
    this.#turns = new TurnRunner((prompt) => editor.question(prompt));
    return editor;
  }

  /** Shift+Tab: the next mode, shown in the prompt and in one line above it. */
  #cycleMode(editor: LineEditor): void {
    const next = nextMode(this.#policy.mode, modeNames(this.#config));
    try {
      this.setMode(next);
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      this.printError(error.message);
      return;
    }
    editor.setPrompt(this.promptText());
    const description = describeMode(this.#config, next);
    this.print(
      `Mode ${next}${description ? `: ${description}` : ""} (Shift+Tab: next mode)`,
      this.styles.dim,
    );
  }

  /** `--resume`: the session picker, or a new session when there is nothing to pick from. */
  #chooseResume(editor: LineEditor): Promise<string | undefined> {
    return chooseSessionToResume(this.worktree, {
      isTerminal: editor.isTerminal,
      out: this.#terminal.out,
      styles: this.styles,
      width: this.width,
      readKeys: (onKeys) => editor.readKeys(onKeys),
      print: (text, style) => this.print(text, style),
      printError: (message) => this.printError(message),
    });
  }

  promptText(): string {
    const mode = this.#policy.mode === "default" ? "" : this.styles.yellow(this.#policy.mode) + " ";
    return `${mode}${this.styles.cyan(">")} `;
  }

  beforePrompt(): void {
    this.#output.showHeld();
  }

  async sendMessage(text: string): Promise<void> {
    if (!this.#model.provider) await this.#connect();
    const provider = this.#model.provider;
    if (!provider) {
      this.printError(this.modelProblem);
      this.print(noModelHint(this.#config), this.styles.dim);
      return;
    }
    // A /model switch is kept in the session, so --continue goes on with the same model.
    if (this.model) this.session.appendModel(this.model);
    await this.#turns!.run(this, this.#currentAgent(provider), text);
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

  print(text: string, style?: (line: string) => string, indent?: string): void {
    this.#output.print(text, style, indent);
  }

  printMarkdown(text: string): void {
    this.#output.printMarkdown(text);
  }

  printError(message: string): void {
    this.#output.printError(message);
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
    return this.#model.knownModels;
  }

  listModels(): Promise<string[] | null> {
    return this.#model.listModels();
  }

  async setModel(name: string): Promise<void> {
    await this.#model.choose(this.#config, name);
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
    if (await this.#model.follow(previous, this.#config)) {
      this.#agent = null;
      this.print(this.model ? `Model ${this.model}` : this.modelProblem, this.styles.dim);
    }
  }

  async newSession(): Promise<void> {
    await this.#sessions.open(undefined, this.#sessionSettings());
    this.#agent = null;
  }

  async loadSession(id: string): Promise<void> {
    await this.#sessions.load(id, this.#sessionSettings());
    await this.#useSessionModel();
    this.#agent = null;
  }

  /**
   * A resumed session goes on with the model it last used (a /model switch included), unless
   * `--model` named one for this REPL; a model that cannot be reached is said, not fatal.
   */
  async #useSessionModel(): Promise<void> {
    const recorded = this.session.turns > 0 ? this.session.model : null;
    if (recorded === null || recorded === this.model || this.#host.modelGiven) return;
    try {
      await this.#model.choose(this.#config, recorded);
      this.#agent = null;
    } catch (error) {
      if (!(error instanceof Error)) throw error;
      this.#output.printLater(
        `Cannot use the session's model "${recorded}": ${error.message}: /model picks another`,
        this.styles.yellow,
      );
    }
  }

  showRecent(): void {
    printRecent(this);
  }

  async compact(signal: AbortSignal): Promise<string | null> {
    const provider = this.#model.provider;
    if (!provider) throw new Error(this.modelProblem);
    return await this.#currentAgent(provider).compact(signal);
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

  pickerTerminal(): PickerTerminal | null {
    const pager = this.pagerTerminal();
    return pager ? { ...pager, width: this.width } : null;
  }

  clearScreen(): void {
    if (this.#terminal.isTerminal) this.#terminal.out.write("\x1b[2J\x1b[3J\x1b[H");
  }

  requestExit(): void {
    this.#exitRequested = true;
  }

  #sessionSettings(): SessionSettings {
    return { config: this.#config, model: this.model };
  }

  /** Connects to the model; on failure the REPL runs on without one and says why. */
  async #connect(): Promise<void> {
    await this.#model.connect(this.#config);
    this.#agent = null;
  }

  #shutdown(): void {
    this.#sink?.dispose();
    this.#editor?.close();
    const kept = this.#sessions.keptId;
    if (kept) {
      // --continue opens this one, even when it is not the newest file (/session load).
      recordLastUsed(this.worktree, kept);
      this.print(`Session ${kept} saved: replio --session ${kept}`, this.styles.dim);
    }
    this.#sessions.close();
  }
}

/** `$HOME` for `~/` completion, only when reading it is already permitted. */
function readHome(): string | null {
  const granted = Deno.permissions.querySync({ name: "env", variable: "HOME" }).state === "granted";
  return granted ? Deno.env.get("HOME") ?? null : null;
}
