/**
 * The engine: the tool loop, context building and turn results.
 * @module
 */
export { Agent, type AgentOptions, RESUMED_PROMPT, type ResumeState } from "./agent.ts";
export { buildSystemPrompt, readProjectInstructions } from "./system_prompt.ts";
export type { TurnLog } from "./turn_log.ts";
export { emptyUsage, type TurnResult, type TurnToolCall } from "./turn_result.ts";
export { AnswerError, recordAnswer, type RecordedAnswer, resumeState } from "./resume_parked.ts";
