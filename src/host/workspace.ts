/**
 * What a caller can do with a workspace (issue 31), whichever way it reached it: as its owner
 * (`openOwner`: the engine in this process) or as a client of the process that owns it
 * (`connectClient`: requests through the owner's endpoint). The CLI and the windows hold this, not
 * the parts it is assembled from.
 */
import type { CommandName, RequestOf, ResultOf } from '../core/requests';
import type { Result } from '../core/result';
import type { Disposable } from '../base/lifetime';
import type { StoreConfig } from '../infra/workspace/storeConfig';

/** The workspace's git as the views read it. */
export interface WorkspaceGit {
  /** Where a worker's worktree is (or will be). */
  worktreePath(workerId: string): string;
  /** The files a branch changed against the base branch. */
  changedFiles(branch: string): Promise<string[]>;
  /** A file's text at a ref. */
  fileAt(ref: string, file: string): Promise<string>;
}

export interface Workspace extends Disposable {
  readonly repoRoot: string;
  /** Its `.foreman/`. */
  readonly foremanDir: string;
  /** Which store backend holds its state (`.foreman/store.json`'s kind); undefined when a client cannot read that file. */
  readonly storeKind: StoreConfig['kind'] | undefined;
  readonly git: WorkspaceGit;
  /** The log of a task's attempt (src/infra/agents/attemptLog.ts). */
  logFile(taskId: string, attempt: number): string;
  /** Every request, through the engine's front door: here, or in the owner's process. */
  execute<C extends CommandName>(request: RequestOf<C>): Promise<Result<ResultOf<C>>>;
}
