/**
 * The tool loop (spec/tools.md §The tool loop): stream a reply, run its tool calls through the
 * policy and the registry, feed the results back, and repeat until the model answers. The
 * engine reports through a Sink and writes the session; it never prints.
 * @module
 */
import type { Config } from "../config/mod.ts";
import type { ChatMessage, Provider, ToolCall, Usage } from "../providers/types.ts";
import {
  createToolContext,
  type InvokeOptions,
  invokeTool,
  type PermissionRecord,
  plainActivity,
  type Policy,
  type ToolContext,
  type ToolRegistry,
} from "../tools/mod.ts";
import type { AskAnswer, AskRequest, ToolImage } from "../tools/types.ts";
import { INTERRUPTED_RESULT } from "../session/mod.ts";
import type { Sink, TurnEvent, TurnStatus } from "../ui/events.ts";
import { Compactor } from "./compaction.ts";
import { analyseResult, refineArguments } from "./model_helpers.ts";
import { buildSystemPrompt } from "./system_prompt.ts";
import type { TurnLog } from "./turn_log.ts";
import { emptyUsage, type TurnResult, type TurnToolCall } from "./turn_result.ts";

/** What an {@link Agent} works with. */
export interface AgentOptions {
  provider: Provider;
  registry: ToolRegistry;
  policy: Policy;
  config: Config;
  session: TurnLog;
  sink: Sink;
  /** Rounds per turn; defaults to config `max_rounds`. */
  maxRounds?: number | undefined;
  /** The agent type's prompt, for sub-agents. */
  agentPrompt?: string | undefined;
  /** Routes the ask tool; defaults to the sink (the human). */
  ask?: ((request: AskRequest) => Promise<AskAnswer>) | undefined;
  /** Host services for tools (delegate's runner). */
  services?: Readonly<Record<string, unknown>> | undefined;
}

/** The prompt recorded for a turn that resumes a parked one (no new user message is sent). */
export const RESUMED_PROMPT = "(resumed after approval)";

/** What a resumed turn starts from: the calls left without a result and the answers given. */
export interface ResumeState {
  calls: ToolCall[];
  /** The answer a person gave for a call (by id, or by an always-allowed prefix). */
  answer: NonNullable<InvokeOptions["answer"]>;
  /** Calls that were granted and may have started before the process died: never rerun. */
  interrupted: ReadonlySet<string>;
}

/** One model round's reply. */
interface Reply {
  text: string;
  thinking: string;
  calls: ToolCall[];
  usage: Usage | null;
  finish: string;
  error: { code: string; message: string } | null;
}

/** Runs turns against one session. */
export class Agent {
  readonly #options: AgentOptions;
  #history: ChatMessage[];
  /** Notices already shown: the system prompt is rebuilt every turn, the notice shown once. */
  readonly #noticed = new Set<string>();
  #contextTokens = 0;
  readonly #compactor: Compactor;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.#history = options.session.history();
    this.#compactor = new Compactor(options);
  }

  /** Tokens the last model request used (prompt and reply): how full the context is. */
  get contextTokens(): number {
    return this.#contextTokens;
  }

  /** The conversation so far (without the system prompt). */
  get history(): readonly ChatMessage[] {
    return this.#history;
  }

  /** Runs one user turn to completion, cancellation, error, the round limit or a parked call. */
  async runTurn(prompt: string, signal: AbortSignal): Promise<TurnResult> {
    this.#options.session.beginTurn(prompt);
    this.#record({ role: "user", content: prompt });
    const result = await this.#runLoop(signal, null);
    // The session sets aside a prompt that got no reply: the next turn must not send it again.
    if (result.status === "error" || result.status === "cancelled") {
      this.#history = this.#options.session.history();
    }
    return result;
  }

  /**
   * Continues a turn a `--park` run stopped: runs the calls that were left without a result
   * (the parked one with the answer given for it, later ones through the policy as usual),
   * then goes on with the model as the turn would have.
   */
  async resumeTurn(resume: ResumeState, signal: AbortSignal): Promise<TurnResult> {
    this.#options.session.beginTurn(RESUMED_PROMPT);
    return await this.#runLoop(signal, resume);
  }

  async #runLoop(signal: AbortSignal, resume: ResumeState | null): Promise<TurnResult> {
    const { config, provider, session, policy, registry } = this.#options;
    const started = performance.now();
    const result = newResult(provider.model, session.id);
    const sink = observingSink(this.#options.sink, result);
    const ctx = this.#toolContext(signal);
    const system = await buildSystemPrompt({
      config,
      worktree: policy.worktree,
      mode: policy.mode,
      modeInstructions: policy.modeInstructions,
      ...(this.#options.agentPrompt ? { agentPrompt: this.#options.agentPrompt } : {}),
      onNotice: (message) => this.#notice(message, sink),
    });
    const tools = config.get("tool_calling") ? registry.schemas((t) => policy.isVisible(t)) : [];
    const maxRounds = this.#options.maxRounds ?? config.get("max_rounds");
    let status: TurnStatus = "max_rounds";
    let lastUsage: Usage | null = null;
    const resumed = resume ? await this.#runCalls(resume.calls, ctx, sink, result, resume) : "done";
    if (resumed !== "done") status = resumed;
    // One object for the turn: the provider keeps each message's wire form by object (issue 26).
    const systemMessage: ChatMessage = { role: "system", content: system };
    while (resumed === "done" && result.rounds < maxRounds) {
      result.rounds++;
      const reply = await this.#streamRound(
        [systemMessage, ...this.#history],
        tools,
        signal,
        sink,
      );
      addUsage(result.usage, reply.usage);
      lastUsage = reply.usage ?? lastUsage;
      if (reply.usage) this.#contextTokens = reply.usage.total_tokens;
      result.content += reply.text;
      result.thinking += reply.thinking;
      if (reply.text || reply.thinking || reply.calls.length) {
        this.#record({
          role: "assistant",
          content: reply.text || null,
          ...(reply.calls.length ? { tool_calls: reply.calls } : {}),
          ...(reply.thinking ? { reasoning: reply.thinking } : {}),
        });
      }
      if (reply.error) {
        this.#reportError(reply.error, sink, result);
        status = "error";
        break;
      }
      if (signal.aborted) {
        this.#skipCalls(reply.calls, sink);
        status = "cancelled";
        break;
      }
      if (reply.calls.length === 0) {
        status = reply.finish === "length" ? "truncated" : "ok";
        break;
      }
      // A resumed turn's answers hold for its later rounds too (an approved command prefix).
      const later = resume && { ...resume, calls: [], interrupted: new Set<string>() };
      const ran = await this.#runCalls(reply.calls, ctx, sink, result, later);
      if (ran !== "done") {
        status = ran;
        break;
      }
      await this.#compactIfNeeded(reply.usage, signal, sink);
    }
    // A turn that ended near the context limit is compacted now, so the next one fits.
    if (status === "ok" || status === "truncated") {
      await this.#compactIfNeeded(lastUsage, signal, sink);
    }
    result.status = status;
    result.duration_ms = Math.round(performance.now() - started);
    // Recorded before it is shown, like every event: a kill in between loses nothing shown.
    session.append({ type: "turn_end", status, usage: result.usage });
    sink.emit({ type: "turn_end", status, usage: result.usage });
    return result;
  }

  #notice(message: string, sink: Sink): void {
    if (this.#noticed.has(message)) return;
    this.#noticed.add(message);
    sink.emit({ type: "note", message });
  }

  /** Summarises older turns now (`/compact`); returns the summary or null when too short. */
  async compact(signal: AbortSignal): Promise<string | null> {
    const compacted = await this.#compactor.compact(this.#history, signal);
    if (compacted) this.#history = compacted.history;
    return compacted?.summary ?? null;
  }

  async #streamRound(
    messages: ChatMessage[],
    tools: ReturnType<ToolRegistry["schemas"]>,
    signal: AbortSignal,
    sink: Sink,
  ): Promise<Reply> {
    const reply: Reply = {
      text: "",
      thinking: "",
      calls: [],
      usage: null,
      finish: "stop",
      error: null,
    };
    for await (const event of this.#options.provider.chat({ messages, tools, signal })) {
      switch (event.type) {
        case "thinking":
          reply.thinking += event.delta;
          sink.emit(event);
          break;
        case "text":
          reply.text += event.delta;
          sink.emit(event);
          break;
        case "tool_calls":
          reply.calls.push(...event.calls);
          break;
        case "usage":
          reply.usage = event.usage;
          break;
        case "retry":
          sink.emit({
            type: "note",
            message: `Retrying in ${(event.delay_ms / 1000).toFixed(1)} s ` +
              `(attempt ${event.attempt} of ${event.attempts}): ${event.reason}`,
          });
          break;
        case "done":
          reply.finish = event.reason;
          break;
        case "error":
          reply.error = { code: event.code, message: event.message };
          break;
      }
    }
    // A cancelled or failed stream may have delivered calls it never finished: drop them.
    if (signal.aborted || reply.error) reply.calls = [];
    return reply;
  }

  /**
   * Runs each call; says whether the turn goes on, was cancelled on the way, or stopped at a
   * parked call (the calls after it stay unanswered until the turn resumes).
   */
  async #runCalls(
    calls: ToolCall[],
    ctx: ToolContext,
    sink: Sink,
    result: TurnResult,
    resume: ResumeState | null,
  ): Promise<"done" | "cancelled" | "parked"> {
    const { registry, policy, provider, config, session } = this.#options;
    for (const [index, call] of calls.entries()) {
      if (ctx.signal.aborted) {
        this.#skipCalls(calls.slice(index), sink);
        return "cancelled";
      }
      if (resume?.interrupted.has(call.id)) {
        // It was granted and started before a crash: running it again could do it twice.
        this.#record({
          role: "tool",
          tool_call_id: call.id,
          name: call.function.name,
          content: INTERRUPTED_RESULT,
        });
        continue;
      }
      const args = await refineArguments({
        call,
        registry,
        config,
        provider,
        history: this.#history,
        signal: ctx.signal,
        sink,
      });
      // Images a tool hands the model (an MCP server's) go with this call's result.
      const images: ToolImage[] = [];
      const outcome = await invokeTool({
        registry,
        policy,
        ctx: { ...ctx, attachImage: (image) => images.push(image) },
        sink,
        audit: (record) => this.#audit(record, result),
        answer: resume?.answer,
        ...(session.checkpoint ? { beforeEdit: (path: string) => session.checkpoint!(path) } : {}),
        persist: (done) =>
          this.#record({
            role: "tool",
            tool_call_id: call.id,
            name: call.function.name,
            content: done.output,
            ...(images.length && !done.isError ? { images } : {}),
          }),
      }, { id: call.id, name: call.function.name, arguments: args });
      if (outcome.parked) {
        const pending = {
          call_id: call.id,
          tool: registry.lookup(call.function.name)?.tool.name ?? call.function.name,
          arguments: parseObject(args),
          activity: outcome.parked.activity,
          reason: outcome.parked.reason,
          fingerprint: outcome.parked.fingerprint,
        };
        session.append({ type: "pending", ...pending });
        sink.emit({
          type: "parked",
          id: pending.call_id,
          tool: pending.tool,
          arguments: pending.arguments,
          activity: pending.activity,
          reason: pending.reason,
        });
        return "parked";
      }
      if (config.get("tool_analysis") && !ctx.signal.aborted) {
        const text = await analyseResult({
          call,
          output: outcome.output,
          provider,
          signal: ctx.signal,
        });
        if (text) session.append({ type: "analysis", tool_call_id: call.id, text });
      }
      if (outcome.cancelled || ctx.signal.aborted) {
        this.#skipCalls(calls.slice(index + 1), sink);
        return "cancelled";
      }
    }
    return "done";
  }

  /** Calls that will not run still get their one result, so the history stays valid. */
  #skipCalls(calls: ToolCall[], sink: Sink): void {
    for (const call of calls) {
      const output = "Error: cancelled by the user before this tool ran";
      this.#record({
        role: "tool",
        tool_call_id: call.id,
        name: call.function.name,
        content: output,
      });
      sink.emit({
        type: "tool_call",
        id: call.id,
        name: call.function.name,
        arguments: {},
        activity: plainActivity(call.function.name),
        isolation: "none",
      });
      sink.emit({
        type: "tool_result",
        id: call.id,
        name: call.function.name,
        output,
        is_error: true,
        is_note: false,
        isolation: "none",
      });
    }
  }

  async #compactIfNeeded(usage: Usage | null, signal: AbortSignal, sink: Sink): Promise<void> {
    const history = this.#history;
    this.#history = await this.#compactor.compactIfNeeded({ history, usage, signal, sink }) ??
      history;
  }

  #record(message: ChatMessage): void {
    this.#history.push(message);
    this.#options.session.append({ type: "message", message });
  }

  #audit(record: PermissionRecord, result: TurnResult): void {
    result.permissions.push(record);
    this.#options.session.append({ type: "permission", ...record });
  }

  #reportError(
    error: { code: string; message: string },
    sink: Sink,
    result: TurnResult,
  ): void {
    result.errors.push(error);
    this.#options.session.append({ type: "error", ...error });
    sink.emit({ type: "error", ...error });
  }

  #toolContext(signal: AbortSignal): ToolContext {
    const { config, policy, sink, services, provider } = this.#options;
    return {
      ...createToolContext({
        config,
        worktree: policy.worktree,
        signal,
        ask: this.#options.ask ?? ((request) => sink.ask(request)),
        services: services ?? {},
      }),
      // A tool may ask this agent's model on another's behalf (an MCP server's sampling).
      model: provider,
    };
  }
}

/** Arguments as the pending record keeps them: the object the model sent, or `{}`. */
function parseObject(args: unknown): Record<string, unknown> {
  if (typeof args === "object" && args !== null && !Array.isArray(args)) {
    return args as Record<string, unknown>;
  }
  try {
    const parsed = JSON.parse(String(args));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function newResult(model: string, session: string): TurnResult {
  return {
    status: "ok",
    content: "",
    thinking: "",
    tool_calls: [],
    permissions: [],
    errors: [],
    usage: emptyUsage(),
    model,
    session,
    rounds: 0,
    duration_ms: 0,
  };
}

function addUsage(total: Usage, round: Usage | null): void {
  if (!round) return;
  total.prompt_tokens += round.prompt_tokens;
  total.completion_tokens += round.completion_tokens;
  total.total_tokens += round.total_tokens;
  if (round.cost !== undefined) total.cost = (total.cost ?? 0) + round.cost;
}

/** Forwards events and fills the result's tool_calls from tool_call/tool_result pairs. */
function observingSink(inner: Sink, result: TurnResult): Sink {
  const pending = new Map<string, TurnToolCall>();
  return {
    emit(event: TurnEvent) {
      if (event.type === "tool_call") {
        const entry = {
          id: event.id,
          name: event.name,
          arguments: event.arguments,
          output: "",
          is_error: false,
        };
        pending.set(event.id, entry);
        result.tool_calls.push(entry);
      } else if (event.type === "tool_result") {
        const entry = pending.get(event.id);
        if (entry) Object.assign(entry, { output: event.output, is_error: event.is_error });
      }
      inner.emit(event);
    },
    confirm: (request) => inner.confirm(request),
    ask: (request) => inner.ask(request),
    // Whether anyone sees status previews is the renderer's to say (json and stream-json don't).
    ...(inner.showsPreviews === undefined ? {} : { showsPreviews: inner.showsPreviews }),
  };
}
