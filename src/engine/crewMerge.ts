import type { Request, MergeReport, ResultOf } from '../core/requests';
import { type Result, ok } from '../core/result';
import { taskCommitMessage } from '../core/taskCommitMessage';
import { WorkerState } from '../core/workerMachine';
import type { CrewWork } from './crewWork';

/**
 * The merge flow (run in the worker's queue): git merges the branch into the base (one merge at a
 * time), and only then the merge's own transaction records it. A conflict sends the worker back
 * to work with the conflicted files as its note.
 */
export async function mergeWorker(crew: CrewWork, workerId: string, request: Request<'merge'>): Promise<Result<ResultOf<'merge'>>> {
  const found = crew.loadIn(workerId, WorkerState.Approved, 'merge');
  if (!found.ok) return found;
  const { worker, task, work } = found.value;
  const { git, tx, settings } = crew;
  // An agent that submitted by itself may still run (an interactive one in a terminal): it must
  // not edit the worktree while the merge rebases it. What it left is committed by the merge.
  await crew.stopAgent(workerId);
  // The merge (or squash) commit, and what the agent left uncommitted, read as the task's work.
  const message = taskCommitMessage(task, worker.summary);
  // Another machine's worker: its worktree is there, its work here is the branch it pushed on
  // submit, which this owner checks out in its own worktree for that worker, task after task.
  const source = crew.runsHere(worker) ? 'worktree' : 'remote';
  const mergeOnce = () => git.merge(work, settings.mergeStrategy, settings.verify, message, source);
  let merged = await mergeOnce();
  if (!merged.ok && source === 'worktree' && (merged.code === 'worktreeMissing' || merged.code === 'wrongBranch')) {
    // Deleted by hand, or on another branch (a worker of any host that ran elsewhere): the branch
    // holds the work, so put the worktree back on it (never over uncommitted changes) and merge.
    const prepared = await git.prepare(work, crew.baseBranch());
    if (prepared.ok) merged = await mergeOnce();
  }
  if (merged.ok) {
    // The merge's own transaction, once git has merged: only ever after the git work above.
    const done = tx.step(request, (unit, s) => s.state.merged(unit, request.args.worker));
    if (!done.ok) return done;
    const report: MergeReport = {
      taskId: task.id,
      title: task.title,
      branch: work.branch,
      base: crew.baseBranch(),
      baseBefore: merged.value.baseBefore,
      baseAfter: merged.value.baseAfter,
    };
    return ok({ ...done.value, merged: report });
  }
  if (merged.code === 'mergeConflict') {
    const listed = merged.details?.['files'];
    const files = Array.isArray(listed) ? listed.filter((file): file is string => typeof file === 'string') : [];
    tx.internal(request.actor, (unit, s) => s.state.mergeConflict(unit, workerId, files));
  }
  return merged;
}
