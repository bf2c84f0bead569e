/**
 * Agents: agent types for delegate, ask routing, and the ask and delegate core tools. The
 * delegate runner (`delegate_runner.ts`) is imported directly by the code that starts agents:
 * it pulls in the engine, which `replio tool` and `replio tools` never need.
 * @module
 */
export {
  type AgentType,
  BUILTIN_AGENT_TYPES,
  formatAgentTypes,
  loadAgentTypes,
  parseAgentFile,
} from "./agent_types.ts";
export { agentTypePolicy } from "./agent_type_policy.ts";
export { CORE_PLUGIN } from "./core_plugin.ts";
export type { DelegateHost, DelegateRequest, DelegateRunner } from "./delegate_runner.ts";
export { IntersectedPolicy, lowerResolution } from "./intersect_policy.ts";
export { AGENT_TYPES_SERVICE, DELEGATE_SERVICE } from "./services.ts";
