/**
 * The composition layer: the engine over a store, git, agents and the endpoint, assembled once
 * for `foreman serve`, the one-shot CLI and the VS Code window.
 */
export { oneShotPatienceMs, openOwner, type OpenOwnerOptions, type OwnerRole, type WorkspaceOwner } from './owner';
export { cliBinDir, ownerHeartbeatMs } from './crewParts';
export { attemptLogFile } from '../infra/agents/attemptLog';
