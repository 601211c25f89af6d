/** A workspace's `.foreman/`: finding it, creating it and its settings (becoming its owner: src/host). */
export { findWorkspaceRoot, foremanDir, foremanDirName, isInitialised } from './paths';
export { loadSettings, settingsFileName } from './settings';
export { initWorkspace, type InitOptions, type InitReport } from './init';
