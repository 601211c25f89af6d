import type { GitPort, MergeSource, MergeStrategy, WorkRef } from '../../engine/ports';
import { type Result, ok } from '../../core/result';
import { resolveCommit, openGit } from './gitClient';
import { GitWorkspace, type GitWorkspaceOptions } from './gitWorkspace';
import { syncLocalBase } from './baseAdvance';
import { fetchBranch, reviewRef } from './remote';
import { rebaseOnto, touchedFiles } from './overlapGit';
import type { TouchedFile } from '../../core/overlapIndex';

/**
 * The engine's GitPort over a GitWorkspace. Failures that only lose a convenience (a snapshot that
 * found nothing to save) are logged and answered with `undefined`; failures that matter come back
 * as results.
 */
export class GitPortAdapter implements GitPort {
  readonly workspace: GitWorkspace;

  constructor(
    private readonly repoRoot: string,
    private readonly baseBranch: () => string,
    options: GitWorkspaceOptions = {},
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.workspace = new GitWorkspace(repoRoot, options);
  }

  async prepare(work: WorkRef, startPoint: string, previous?: { taskId: string; attempt: number }): Promise<Result<{ worktree: string }>> {
    const remote = this.workspace.remote;
    if (remote !== undefined && startPoint === this.baseBranch()) {
      // A new branch starts from what the crew merged on every machine, not this clone's old copy.
      const synced = await syncLocalBase(this.repoRoot, remote, startPoint);
      if (!synced.ok) this.log(`git: could not bring ${startPoint} up to ${remote}/${startPoint}: ${synced.message}`);
    }
    const request = {
      workerId: work.workerId,
      taskId: work.taskId,
      startPoint,
      ...(previous && previous.attempt > 0 ? { current: { taskId: previous.taskId, attempt: previous.attempt } } : {}),
    };
    let prepared = await this.workspace.prepareWorktree(request);
    if (!prepared.ok && prepared.code === 'worktreeMissing') {
      // Deleted by hand: git still lists it. Prune and recreate; the branch (and its commits) is intact.
      this.log(`git: the worktree of ${work.workerId} was missing; recreating it`);
      prepared = await this.workspace.repairMissing(request);
    }
    const saved = prepared.ok ? undefined : prepared.details?.['wipSha'];
    if (!prepared.ok && prepared.code === 'dirtyWorktree' && typeof saved === 'string') {
      // The previous task's leftovers are now in a wip ref: clear them so the worker can move on,
      // rather than fail every task it is given from now on.
      const cleared = await this.workspace.discardSnapshotted(work.workerId, saved);
      if (cleared.ok) {
        this.log(
          `git: cleared the worktree of ${work.workerId} for ${work.taskId}; its previous changes are in ${String(prepared.details?.['wipRef'])}`,
        );
        prepared = await this.workspace.prepareWorktree(request);
      }
    }
    if (!prepared.ok) return prepared;
    if (prepared.value.branch !== work.branch) {
      return {
        ok: false,
        kind: 'invalid',
        code: 'branchMismatch',
        message: `The worktree is on ${prepared.value.branch} but the task branch is ${work.branch}; check foreman.branchTemplate.`,
      };
    }
    return ok({ worktree: prepared.value.path });
  }

  async snapshot(work: WorkRef, reason: string): Promise<string | undefined> {
    const saved = await this.workspace.snapshot(work, `Foreman wip: ${reason}`);
    if (!saved.ok) {
      this.log(`git: could not snapshot ${work.workerId}/${work.taskId}: ${saved.message}`);
      return undefined;
    }
    if (saved.value)
      this.log(
        `git: saved the work of ${work.workerId} on ${work.taskId} (attempt ${work.attempt}) to refs/foreman/wip/${work.taskId}/${work.attempt}`,
      );
    return saved.value;
  }

  async commitLeftovers(work: WorkRef, message: string): Promise<string | undefined> {
    const committed = await this.workspace.commitLeftovers(work, message);
    if (!committed.ok) {
      this.log(`git: could not commit the leftovers of ${work.workerId}: ${committed.message}`);
      return undefined;
    }
    return committed.value;
  }

  async merge(
    work: WorkRef,
    strategy: MergeStrategy,
    verify?: (worktree: string) => Promise<Result<void>>,
    message?: string,
    source?: MergeSource,
  ): Promise<Result<{ baseBefore: string; baseAfter: string }>> {
    return this.workspace.merge({
      workerId: work.workerId,
      taskId: work.taskId,
      attempt: work.attempt,
      base: this.baseBranch(),
      strategy,
      branch: work.branch,
      ...(verify ? { verify } : {}),
      ...(message ? { message } : {}),
      ...(source ? { source } : {}),
    });
  }

  /**
   * Pushes a submitted task branch to the shared remote, so that any machine can review it.
   * Without a remote there is nothing to do.
   */
  publish(work: WorkRef): Promise<Result<void>> {
    return this.workspace.publish(work.branch);
  }

  /**
   * Whether the branch exists here. With a remote, a branch pushed from another machine (a task
   * requeued after its owner stopped) is fetched and created here, so the next attempt starts from it.
   */
  async branchExists(branch: string): Promise<boolean> {
    const git = openGit(this.repoRoot);
    if ((await resolveCommit(git, `refs/heads/${branch}`)) !== undefined) return true;
    const remote = this.workspace.remote;
    if (remote === undefined) return false;
    const fetched = await fetchBranch(this.repoRoot, remote, branch);
    if (!fetched.ok) return false;
    // The empty old value: created only if it still does not exist.
    await git
      .raw(['update-ref', '-m', `foreman: ${branch} from ${remote}`, `refs/heads/${branch}`, fetched.value, ''])
      .catch(() => undefined);
    return (await resolveCommit(git, `refs/heads/${branch}`)) !== undefined;
  }

  /** The overlap check's reading of a worktree (overlapGit.ts). */
  touchedFiles(workerId: string): Promise<Result<TouchedFile[]>> {
    return touchedFiles(this.worktreePath(workerId), this.baseBranch());
  }

  rebaseOnBase(work: WorkRef): Promise<Result<{ head: string }>> {
    return rebaseOnto(this.worktreePath(work.workerId), this.baseBranch(), work.branch);
  }

  worktreePath(workerId: string): string {
    const path = this.workspace.worktreePathFor(workerId);
    return path.ok ? path.value : '';
  }

  async changedFiles(branch: string): Promise<string[]> {
    const files = await this.workspace.changedFiles(this.baseBranch(), branch);
    return files.ok ? files.value.map((file) => file.path) : [];
  }

  /** With a remote, a branch name this clone lacks is read from the remote's copy (fetched first). */
  async fileAt(ref: string, file: string): Promise<string> {
    // `ref:file` is one argv element; a leading dash would make git read it as an option.
    if (ref.startsWith('-') || file.startsWith('-')) return '';
    const git = openGit(this.repoRoot);
    let at = ref;
    const remote = this.workspace.remote;
    if (remote !== undefined && (await resolveCommit(git, ref)) === undefined) {
      const fetched = await reviewRef(this.repoRoot, ref, remote);
      if (fetched.ok) at = fetched.value;
    }
    try {
      return await git.show([`${at}:${file}`]);
    } catch {
      return '';
    }
  }
}
