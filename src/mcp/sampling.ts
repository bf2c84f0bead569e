/**
 * An MCP server's `sampling/createMessage`: a completion from replio's own model, the model of
 * the agent whose call is running, without tools. `tool_permission.mcp_sampling` decides (ask
 * by default): the REPL asks the person, a headless run allows it only with `--yes`. A refusal
 * is an error to the server and a line for the model with the call's result.
 * @module
 */
import type { HeadlessAnswer } from "../tools/mod.ts";
import type { CallModel } from "../tools/types.ts";
import { ErrorCode, McpError } from "./_sdk.ts";
import type {
  CreateMessageRequest,
  CreateMessageResult,
  SamplingMessage,
} from "./_sdk_requests.ts";
import type { CallScope } from "./active_calls.ts";
import { describeBlock } from "./call_result.ts";

/** MCP's example code for a sampling request the user rejected. */
const REJECTED = -1;

/** Characters of the request shown to the person when asking to allow it. */
const PREVIEW_CHARS = 300;

/** What {@link sampleForServer} needs besides the request. */
export interface SamplingOptions {
  /** The server's name in `mcp_servers`. */
  server: string;
  /** How this run answers ask-gated actions without a person (`--yes`); undefined in the REPL. */
  headless: HeadlessAnswer | undefined;
  /** The request's own signal: aborted when the server cancels it. */
  signal: AbortSignal;
}

/** Answers a sampling request through the running call's model, or refuses it; see the module doc. */
export async function sampleForServer(
  params: CreateMessageRequest["params"],
  scope: CallScope | undefined,
  options: SamplingOptions,
): Promise<CreateMessageResult> {
  const { server } = options;
  if (params.tools !== undefined || params.toolChoice !== undefined) {
    // MCP: a client that does not declare sampling.tools must refuse a request with tools.
    throw new McpError(
      ErrorCode.InvalidParams,
      "replio samples without tools (it declares no sampling.tools): send the request without tools and toolChoice",
    );
  }
  if (!scope) {
    throw new McpError(
      REJECTED,
      "replio answers sampling requests only while one of this server's tools runs: request it during a tool call",
    );
  }
  const model = scope.ctx.model;
  const refusal = !model
    ? "no model runs this call (replio tool, /tool and replio mcp call tools without one)"
    : await permissionRefusal(params, scope, options);
  if (refusal !== null) {
    scope.notes.push(
      `replio refused the request of MCP server "${server}" to use the model (sampling): ${refusal}`,
    );
    throw new McpError(REJECTED, `Sampling refused: ${refusal}`);
  }
  const signal = AbortSignal.any([scope.ctx.signal, options.signal]);
  let text: string;
  try {
    text = await model!.complete(toChatMessages(params), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    const detail = error instanceof Error ? error.message : String(error);
    throw new McpError(ErrorCode.InternalError, `Sampling failed: ${detail}`);
  }
  return {
    model: model!.model,
    role: "assistant",
    content: { type: "text", text },
    stopReason: "endTurn",
  };
}

/** Why the request may not run under `tool_permission.mcp_sampling`, or null when it may. */
async function permissionRefusal(
  params: CreateMessageRequest["params"],
  scope: CallScope,
  options: SamplingOptions,
): Promise<string | null> {
  const action = scope.ctx.config.get("tool_permission.mcp_sampling");
  if (action === "allow") return null;
  if (action === "deny") return "tool_permission.mcp_sampling is deny";
  if (options.headless === "yes") return null;
  if (options.headless !== undefined) {
    return "it needs confirmation (tool_permission.mcp_sampling) and this headless run cannot ask: the operator can rerun with --yes";
  }
  const answer = await scope.askPerson({
    question: `MCP server "${options.server}" asks to use the model (sampling): allow it?`,
    context: preview(params),
    options: ["yes", "no"],
    target: "human",
  });
  if (answer === null) {
    return scope.ctx.signal.aborted
      ? "the user cancelled the turn"
      : "no person can allow it in this run (tool_permission.mcp_sampling is ask)";
  }
  return /^\s*y(es)?\s*$/i.test(answer) ? null : "the user declined it";
}

/**
 * The request as the person sees it before allowing it, on one line (the prompt wraps it):
 * system prompt, last message, size.
 */
function preview(params: CreateMessageRequest["params"]): string {
  const clip = (text: string) => {
    const flat = text.replace(/\s+/g, " ").trim();
    return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS)}…` : flat;
  };
  const last = params.messages.at(-1);
  return [
    params.systemPrompt ? `System prompt: ${clip(params.systemPrompt)}` : "",
    last ? `${last.role === "user" ? "Prompt" : "Last message"}: ${clip(messageText(last))}` : "",
    `${params.messages.length} message${params.messages.length === 1 ? "" : "s"}, ` +
    `up to ${params.maxTokens} tokens asked`,
  ].filter(Boolean).join("; ");
}

/** The request as chat messages: the system prompt, then each message's text. */
function toChatMessages(
  params: CreateMessageRequest["params"],
): Parameters<CallModel["complete"]>[0] {
  return [
    ...(params.systemPrompt ? [{ role: "system" as const, content: params.systemPrompt }] : []),
    ...params.messages.map((message) => ({ role: message.role, content: messageText(message) })),
  ];
}

/** A sampling message's blocks as text: images and audio described, as in tool results. */
function messageText(message: SamplingMessage): string {
  const blocks = Array.isArray(message.content) ? message.content : [message.content];
  return blocks.map((block) => {
    if (block.type === "tool_use" || block.type === "tool_result") {
      throw new McpError(
        ErrorCode.InvalidParams,
        `replio samples without tools, so a message cannot hold "${block.type}": send text only`,
      );
    }
    return block.type === "text" ? block.text : describeBlock(block, "sampling sends text only");
  }).join("\n");
}
