/** A workspace's `.foreman/`: finding it, creating it, its settings, and becoming its owner. */
export { findWorkspaceRoot, foremanDir, foremanDirName, isInitialised } from './paths';
export { loadSettings, settingsFileName } from './settings';
export { initWorkspace, type InitOptions, type InitReport } from './init';
export { oneShotPatienceMs, openOwner, type OpenOwnerOptions, type OwnerRole, type WorkspaceOwner } from './owner';
