/** Launched agents (ARCHITECTURE §6) and the process-level liveness signals the monitor reads (§4). */
export { AgentSupervisor, describeExit, type AgentExit, type AgentLaunchSpec, type AgentSupervisorOptions } from './agentSupervisor';
export type { AgentRun, AgentSignals } from './agentRun';
export { isAlive, isGroupAlive } from './processes';
export {
  agentModes,
  agentProfileSchema,
  builtinProfiles,
  demoAgentArgs,
  expandPlaceholders,
  placeholderNames,
  promptDeliveries,
  resolveProfile,
  type AgentMode,
  type AgentProfile,
  type AgentProfileInput,
  type PlaceholderName,
  type PlaceholderValues,
  type PromptDelivery,
} from './profiles';
export { SupervisedAgents } from './agentPort';
export { verifyRunner } from './verify';
export { WorktreeSetup, type PrepareOutcome, type PrepareRequest, type WorktreeSetupSettings } from './worktreeSetup';
