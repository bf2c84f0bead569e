/**
 * The keys under which the host hands agent services to tools and permission functions.
 * @module
 */

/** The delegate runner of the calling agent. */
export const DELEGATE_SERVICE = "delegate";

/** The agent types (a `ReadonlyMap<string, AgentType>`). */
export const AGENT_TYPES_SERVICE = "agentTypes";
