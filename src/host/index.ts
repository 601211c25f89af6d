/**
 * The composition layer: the engine over a store, git, agents and the endpoint, assembled once
 * for `foreman serve`, the one-shot CLI and the VS Code window.
 */
export { oneShotPatienceMs, openOwner, type OpenOwnerOptions, type OwnerRole, type WorkspaceOwner } from './owner';
export { type OwnerEndpointOptions, startOwnerEndpoint } from './ownerEndpoint';
export { type ClientOptions, type WorkspaceClient, connectClient } from './client';
export type { Workspace, WorkspaceGit } from './workspace';
export { type DoctorCheck, type DoctorOptions, type InitOptions, type InitReport, doctor, init } from './setup';
export { cliBinDir, ownerHeartbeatMs } from './crewParts';
export { attemptLogFile } from '../infra/agents/attemptLog';
