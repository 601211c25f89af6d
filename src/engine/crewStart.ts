import type { Request, ResultOf } from '../core/requests';
import { type Result, ok } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import type { CrewWork } from './crewWork';

/** Setup refusals that stay until a person moves something or changes a setting (worktrees.ts). */
const settingRefusals: ReadonlySet<string> = new Set(['pathOccupied']);

/**
 * The start flow (run in the worker's queue): prepares the worktree, then moves the worker to
 * WORKING and, with agents, launches its agent. `request` is absent when the crew starts a worker
 * by itself (an assignment seen, a restart).
 */
export async function startWorker(crew: CrewWork, workerId: string, request?: Request<'start'>): Promise<Result<ResultOf<'start'>>> {
  const found = crew.loadIn(workerId, WorkerState.Assigned, 'start');
  if (!found.ok) return found;
  const { worker, task, work } = found.value;
  const { git, tx } = crew;
  const base = crew.baseBranch();
  // A chain's step whose predecessor is still in review on the forge starts on its branch (stacked, docs/handoff.md).
  const stackedOn = task.pr_base && task.pr_base !== work.branch && (await git.branchExists(task.pr_base)) ? task.pr_base : base;
  const startPoint =
    task.previous_branch && task.previous_branch !== work.branch && (await git.branchExists(task.previous_branch))
      ? task.previous_branch
      : stackedOn;
  const prepared = await git.prepare(work, startPoint, crew.previousWork(workerId));
  if (!prepared.ok) {
    // A setup that no retry can fix (a folder in the way, a setting that names the main checkout)
    // fails the task for good at once, so a person acts now instead of after every backoff.
    const final = prepared.kind === 'invalid' || settingRefusals.has(prepared.code);
    tx.apply({
      command: 'fail',
      args: { worker: workerId, reason: `setup failed: ${prepared.message}`, attempt: work.attempt, ...(final ? { final } : {}) },
      actor: 'crew',
    });
    return prepared;
  }
  const header = request ?? { command: 'start', actor: 'crew' };
  const started = tx.step(header, (unit, s) => s.state.start(unit, workerId));
  if (!started.ok) return started;
  const runner = crew.runner;
  if (runner) void crew.serialized(workerId, () => runner.startTask(work, prepared.value.worktree, worker, task));
  return ok({ ...started.value, worktree: prepared.value.worktree });
}

/** A WORKING worker sent back to work (review notes, a merge conflict, a failed check, a resume): its agent continues, told the note. */
export async function relaunchWorker(crew: CrewWork, workerId: string): Promise<void> {
  const found = crew.load(workerId);
  if (!found.ok || found.value.worker.state !== WorkerState.Working) return;
  const work = crew.workOf(found.value.worker);
  if (!work) return;
  const prepared = await crew.git.prepare(work, crew.baseBranch());
  const note = found.value.worker.note ?? 'Continue the task.';
  if (prepared.ok) crew.runner?.followUp(work, prepared.value.worktree, found.value.worker, found.value.task, note);
}
