/**
 * Public API of Foreman's git layer (ARCHITECTURE §5). Everything runs git through simple-git with
 * argv arrays; expected failures come back as Result values (src/core/result.ts).
 */
export { GitWorkspace, type GitWorkspaceOptions, type PrepareRequest, type WorkerTask } from './gitWorkspace';
export { initRepoInfo, type RepoInfo } from './repoInfo';
export {
  branchFor,
  branchNameProblem,
  checkBranchTemplate,
  defaultBranchTemplate,
  parseWipRef,
  validateBranchName,
  wipRefFor,
  type BranchVariables,
} from './names';
export {
  defaultWorktreePath,
  ensureWorktree,
  removeWorktree,
  type EnsureWorktreeRequest,
  type EnsuredWorktree,
  type RemoveWorktreeRequest,
  type WorkInProgress,
} from './worktrees';
export { verifyWorktreeTopLevel } from './topLevel';
export { reconcileWorktrees, repairMissingWorktree, repairWorktreeLink, type ExpectedWorktree, type WorktreeReport } from './reconcile';
export { listWorktrees, type WorktreeEntry } from './worktreeList';
export { listWip, restoreWip, snapshotWip, type RestoreRequest, type SnapshotRequest, type WipSnapshot } from './snapshots';
export { commitLeftovers, type ForemanTrailers, type LeftoversRequest } from './commits';
export { changedFiles, commitsAhead, deleteBranch, type ChangedFile, type DeleteBranchOptions } from './branches';
export { syncLocalBase } from './baseAdvance';
export { mergeBranch, type MergeOutcome, type MergeRequest, type MergeSource, type MergeStrategy } from './mergeQueue';
export { MergeLockError, type MergeLease, type MergeLock } from './mergeLock';
export { checkRemote, fetchBranch, pushFastForward, reviewRef, trackingRef } from './remote';
