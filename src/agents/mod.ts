/**
 * Agents: agent types for delegate, the delegate runner, ask routing, and the core tools.
 * @module
 */
export {
  type AgentType,
  BUILTIN_AGENT_TYPES,
  loadAgentTypes,
  parseAgentFile,
} from "./agent_types.ts";
export { CORE_PLUGIN } from "./core_plugin.ts";
export {
  AGENT_TYPES_SERVICE,
  DELEGATE_SERVICE,
  type DelegateHost,
  type DelegateRequest,
  DelegateRunner,
} from "./delegate_runner.ts";
export { IntersectedPolicy, lowerResolution } from "./intersect_policy.ts";
