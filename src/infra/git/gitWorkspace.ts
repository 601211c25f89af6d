/**
 * Everything Foreman does with git for one repository, in the terms the engine speaks (workers,
 * tasks, attempts). It implements the engine's git port; the functions it bundles stay usable on
 * their own for the CLI and tests.
 */
import { type Result, ok } from '../../core/result';
import { type ChangedFile, changedFiles, commitsAhead, deleteBranch } from './branches';
import { commitLeftovers } from './commits';
import { openGit } from './gitClient';
import type { MergeLock } from './mergeLock';
import { type MergeOutcome, type MergeRequest, mergeBranch } from './mergeQueue';
import { branchFor, checkBranchTemplate, defaultBranchTemplate, validateBranchName } from './names';
import { type WorktreeReport, reconcileWorktrees, repairMissingWorktree, repairWorktreeLink } from './reconcile';
import { checkRemote, pushFastForward } from './remote';
import { type RepoInfo, initRepoInfo } from './repoInfo';
import { type WipSnapshot, discardSnapshotted, listWip, restoreWip, snapshotWip } from './snapshots';
import { verifyWorktreeTopLevel } from './topLevel';
import { type EnsuredWorktree, type WorkInProgress, defaultWorktreePath, ensureWorktree, removeWorktree } from './worktrees';

export interface GitWorkspaceOptions {
  /** Folder holding one worktree per worker; default `<repo parent>/.foreman-worktrees/<repo name>`. */
  readonly worktreeRoot?: string;
  /** Branch name template with `{worker}` and `{task}`; default `{worker}/{task}`. */
  readonly branchTemplate?: string;
  /**
   * The remote shared by the crew's machines (`origin`): task branches are pushed there on submit,
   * read from there when not local, and merges land on its base. Absent: this clone only.
   */
  readonly remote?: string;
  /** Who may merge now, across machines; absent: one merge at a time in this process. */
  readonly mergeLock?: MergeLock;
}

/** A worker's task, as the engine names it. */
export interface WorkerTask {
  readonly workerId: string;
  readonly taskId: string;
  readonly attempt: number;
}

export interface PrepareRequest {
  readonly workerId: string;
  readonly taskId: string;
  /** Where a new task branch starts: the base, or the previous attempt's tip on another worker. */
  readonly startPoint: string;
  /** The work the worker's worktree holds now, snapshotted if a switch has to be refused. */
  readonly current?: WorkInProgress;
}

export class GitWorkspace {
  private readonly branchTemplate: string;
  private remoteConfirmed = false;

  constructor(
    readonly repoRoot: string,
    private readonly options: GitWorkspaceOptions = {},
  ) {
    this.branchTemplate = options.branchTemplate ?? defaultBranchTemplate;
  }

  /** Checks that the folder is a repository root, the branch template is usable and the remote exists. */
  async open(): Promise<Result<RepoInfo>> {
    const template = checkBranchTemplate(this.branchTemplate);
    if (!template.ok) return template;
    const info = await initRepoInfo(this.repoRoot);
    if (!info.ok || this.options.remote === undefined) return info;
    const remote = await checkRemote(this.repoRoot, this.options.remote);
    return remote.ok ? info : remote;
  }

  /** The shared remote, when the crew has one. */
  get remote(): string | undefined {
    return this.options.remote;
  }

  /**
   * Pushes a task branch to the shared remote (a fast-forward, never forced), so that a reviewer on
   * any machine can fetch it. Nothing to do without a remote. A refusal changes nothing here.
   */
  async publish(branch: string): Promise<Result<void>> {
    const remote = await this.checkedRemote();
    if (!remote.ok || remote.value === undefined) return remote.ok ? ok(undefined) : remote;
    return pushFastForward(this.repoRoot, remote.value, `refs/heads/${branch}`, branch);
  }

  /**
   * The remote, once `git remote` has listed it: a misspelt name is refused with the names the
   * clone has, rather than with git's guess that it is a path. A success is remembered.
   */
  private async checkedRemote(): Promise<Result<string | undefined>> {
    const remote = this.options.remote;
    if (remote === undefined || this.remoteConfirmed) return ok(remote);
    const checked = await checkRemote(this.repoRoot, remote);
    if (!checked.ok) return checked;
    this.remoteConfirmed = true;
    return ok(remote);
  }

  /** The task branch for a worker, checked by the template rules and by git. */
  async branchFor(workerId: string, taskId: string): Promise<Result<string>> {
    const name = branchFor(this.branchTemplate, { workerId, taskId });
    if (!name.ok) return name;
    return validateBranchName(openGit(this.repoRoot), name.value);
  }

  worktreePathFor(workerId: string): Result<string> {
    return defaultWorktreePath(this.repoRoot, workerId, this.options.worktreeRoot);
  }

  /** Creates or reuses the worker's worktree, on the task's branch. */
  async prepareWorktree(request: PrepareRequest): Promise<Result<EnsuredWorktree>> {
    const located = await this.locate(request.workerId, request.taskId);
    if (!located.ok) return located;
    return ensureWorktree({ repoRoot: this.repoRoot, ...located.value, startPoint: request.startPoint, current: request.current });
  }

  /** Recreates a worktree whose folder was deleted by hand (see `reconcile`). */
  async repairMissing(request: PrepareRequest): Promise<Result<EnsuredWorktree>> {
    const located = await this.locate(request.workerId, request.taskId);
    if (!located.ok) return located;
    return repairMissingWorktree({ repoRoot: this.repoRoot, ...located.value, startPoint: request.startPoint });
  }

  /** Re-links a worktree reported `moved` or `broken` by `reconcile`. */
  async repairLink(workerId: string): Promise<Result<string>> {
    const path = this.worktreePathFor(workerId);
    if (!path.ok) return path;
    return repairWorktreeLink(this.repoRoot, path.value);
  }

  /** Before launching an agent: git's top level in the worker's worktree must be that worktree. */
  async verifyWorktree(workerId: string): Promise<Result<string>> {
    const path = this.worktreePathFor(workerId);
    if (!path.ok) return path;
    return verifyWorktreeTopLevel(path.value);
  }

  /** Compares the workers' worktrees with git's list; reports only. */
  async reconcile(workerIds: readonly string[]): Promise<Result<WorktreeReport>> {
    const expected: Array<{ workerId: string; path: string }> = [];
    for (const workerId of workerIds) {
      const path = this.worktreePathFor(workerId);
      if (!path.ok) return path;
      expected.push({ workerId, path: path.value });
    }
    return ok(await reconcileWorktrees(this.repoRoot, expected));
  }

  async removeWorktree(workerId: string, preserve?: WorkInProgress): Promise<Result<{ path: string; wipSha?: string }>> {
    const path = this.worktreePathFor(workerId);
    if (!path.ok) return path;
    return removeWorktree({ repoRoot: this.repoRoot, worktreePath: path.value, preserve });
  }

  /** Saves the worker's uncommitted work to `refs/foreman/wip/<task>/<attempt>`; undefined when clean. */
  async snapshot(task: WorkerTask, message?: string): Promise<Result<string | undefined>> {
    const path = this.worktreePathFor(task.workerId);
    if (!path.ok) return path;
    return snapshotWip({ worktreePath: path.value, taskId: task.taskId, attempt: task.attempt, message });
  }

  /** Clears the worker's worktree, only if the snapshot `sha` holds exactly what it clears. */
  async discardSnapshotted(workerId: string, sha: string): Promise<Result<void>> {
    const path = this.worktreePathFor(workerId);
    if (!path.ok) return path;
    return discardSnapshotted(path.value, sha);
  }

  listWip(): Promise<WipSnapshot[]> {
    return listWip(this.repoRoot);
  }

  async restoreWip(workerId: string, ref: string): Promise<Result<{ sha: string; files: string[] }>> {
    const path = this.worktreePathFor(workerId);
    if (!path.ok) return path;
    return restoreWip({ worktreePath: path.value, ref });
  }

  /** Commits what the agent left uncommitted, with Foreman's trailers; undefined when clean. */
  async commitLeftovers(task: WorkerTask, message?: string): Promise<Result<string | undefined>> {
    const path = this.worktreePathFor(task.workerId);
    if (!path.ok) return path;
    return commitLeftovers({ worktreePath: path.value, ...task, message });
  }

  commitsAhead(branch: string, base: string): Promise<Result<number>> {
    return commitsAhead(this.repoRoot, branch, base);
  }

  /** What the branch changes; with a remote, a branch this clone lacks is fetched from it first. */
  changedFiles(base: string, branch: string): Promise<Result<ChangedFile[]>> {
    return changedFiles(this.repoRoot, base, branch, this.options.remote !== undefined ? { remote: this.options.remote } : {});
  }

  deleteBranch(branch: string, options: { base: string; force?: boolean }): Promise<Result<{ sha: string; commitsAhead: number }>> {
    return deleteBranch(this.repoRoot, branch, options);
  }

  /**
   * Merges the task branch from the worker's worktree into the base (one merge at a time); with
   * `source: 'remote'`, from the remote's copy, checked out in this clone's worktree for the worker.
   */
  async merge(request: Omit<MergeRequest, 'repoRoot' | 'worktreePath' | 'branch'> & { branch?: string }): Promise<Result<MergeOutcome>> {
    const path = this.worktreePathFor(request.workerId);
    if (!path.ok) return path;
    const branch = request.branch === undefined ? await this.branchFor(request.workerId, request.taskId) : ok(request.branch);
    if (!branch.ok) return branch;
    const remote = await this.checkedRemote();
    if (!remote.ok) return remote;
    return mergeBranch({
      ...request,
      repoRoot: this.repoRoot,
      worktreePath: path.value,
      branch: branch.value,
      ...(remote.value !== undefined ? { remote: remote.value } : {}),
      ...(this.options.mergeLock !== undefined ? { lock: this.options.mergeLock } : {}),
    });
  }

  private async locate(workerId: string, taskId: string): Promise<Result<{ worktreePath: string; branch: string }>> {
    const path = this.worktreePathFor(workerId);
    if (!path.ok) return path;
    const branch = await this.branchFor(workerId, taskId);
    if (!branch.ok) return branch;
    return ok({ worktreePath: path.value, branch: branch.value });
  }
}
