import type { TouchedFile } from '../../core/overlapIndex';
import type { Result } from '../../core/result';

/** The task at hand for git and agent operations. */
export interface WorkRef {
  readonly workerId: string;
  readonly taskId: string;
  readonly attempt: number;
  readonly branch: string;
}

export type MergeStrategy = 'rebase' | 'merge' | 'squash';

/**
 * Where a task's work is when it is merged: `worktree`, the worker's worktree in this clone (its
 * own machine); `remote`, the shared remote's copy of its branch (a worker of another machine).
 */
export type MergeSource = 'worktree' | 'remote';

/** Git as the engine needs it (ARCHITECTURE §5); implemented with simple-git in src/infra/git. */
export interface GitPort {
  /**
   * Creates or reuses the worker's worktree on the task branch, started from `startPoint` when new.
   * `previous` names the work the worktree may still hold, so it can be snapshotted before a switch.
   */
  prepare(work: WorkRef, startPoint: string, previous?: { taskId: string; attempt: number }): Promise<Result<{ worktree: string }>>;
  /** The file list of a branch against the base, for "show changes". */
  changedFiles(branch: string): Promise<string[]>;
  /** A file's text at a ref ('' when absent). */
  fileAt(ref: string, file: string): Promise<string>;
  /** Saves uncommitted and untracked changes to `refs/foreman/wip/<task>/<attempt>` without touching the worktree. */
  snapshot(work: WorkRef, reason: string): Promise<string | undefined>;
  /** Commits whatever the agent left, with the Foreman trailers. */
  commitLeftovers(work: WorkRef, message: string): Promise<string | undefined>;
  /**
   * Rebases (or merges, or squashes) the task branch into the base; one merge at a time. `message`
   * (the task's title and summary) is the merge or squash commit's, and that of any edits still uncommitted.
   * `source: 'remote'` (another machine's worker): this clone's own worktree for the worker is put on
   * the remote's copy of the branch first, whatever it held.
   */
  merge(
    work: WorkRef,
    strategy: MergeStrategy,
    verify?: (worktree: string) => Promise<Result<void>>,
    message?: string,
    source?: MergeSource,
  ): Promise<Result<{ baseBefore: string; baseAfter: string }>>;
  branchExists(branch: string): Promise<boolean>;
  worktreePath(workerId: string): string;
  /**
   * Pushes a submitted task branch to the crew's shared remote (fast-forward only), so any machine
   * can review it; nothing to do without one. Absent in ports that have no remote at all.
   */
  publish?(work: WorkRef): Promise<Result<void>>;
  /**
   * The files the worker's worktree changed against the base, uncommitted edits included, with the
   * base lines each change touches (the overlap check, docs/overlaps.md). Absent: no overlap diffs.
   */
  touchedFiles?(workerId: string): Promise<Result<TouchedFile[]>>;
  /** Rebases the task branch in the worker's (clean) worktree onto the base; a conflict leaves it as it was. */
  rebaseOnBase?(work: WorkRef): Promise<Result<{ head: string }>>;
}
