/**
 * What a long-running owner with agents does by itself, each step in the worker's queue: after a
 * commit (`reactTo`), a change by another owner (`noteExternal`) and a restart (`recoverOrphans`).
 */
import { workerPhases } from '../core/actions';
import { ok } from '../core/result';
import { WorkerState } from '../core/workerMachine';
import { relaunchWorker, startWorker } from './crewStart';
import type { CrewWork } from './crewWork';
import { listWorkersOnHost, listWorkersWithAgents, setWorkerLastError } from './queries';
import { findWorker } from './rows';
import type { EngineEvent } from './unit';

/** States in which a worker's agent must not run any more. */
const stoppedStates: ReadonlySet<WorkerState> = new Set(workerPhases.agentStopped);

/** Reactions of a long-running owner with agents to the commits it hears of. */
export function reactTo(crew: CrewWork, event: EngineEvent): void {
  if (event.kind !== 'worker' || crew.isDisposed) return;
  const { tx } = crew;
  if (event.to === WorkerState.Assigned) {
    const worker = tx.read((reader) => findWorker(reader, event.id));
    if (worker && crew.runsHere(worker)) void crew.serialized(event.id, () => startWorker(crew, event.id));
  }
  if (event.trigger === 'submit') void crew.serialized(event.id, () => publish(crew, event.id));
  if (
    event.to === WorkerState.Working &&
    (event.trigger === 'requestChanges' ||
      event.trigger === 'mergeConflict' ||
      event.trigger === 'checkFailed' ||
      event.trigger === 'reviewComments' ||
      event.trigger === 'resume')
  ) {
    void crew.serialized(event.id, () => relaunchWorker(crew, event.id));
  }
  if (event.trigger === 'limitReached') {
    // Paused while its agent still retried: stop it; its session and worktree wait for the reset.
    const worker = tx.read((reader) => findWorker(reader, event.id));
    if (worker && crew.runsHere(worker)) void crew.serialized(event.id, () => crew.stopAgent(event.id));
  }
  if (event.trigger === 'cancel' || event.trigger === 'dead' || event.trigger === 'heartbeatTimeout') {
    // A STALE worker still holds its task: what its agent left is saved before the retry.
    const worker = tx.read((reader) => findWorker(reader, event.id));
    // Another machine's worker: its agent and worktree are there, not here.
    if (worker && !crew.runsHere(worker)) return;
    const work = worker?.state === WorkerState.Stale ? crew.workOf(worker) : undefined;
    void crew.serialized(event.id, async () => {
      await crew.stopAgent(event.id);
      if (work) await crew.git.snapshot(work, `agent stopped: ${worker?.last_error ?? event.trigger}`);
    });
  }
}

/**
 * Another owner changed these workers (undefined: which is not known). Those of this host it
 * assigned (`assign` from another machine) are started here, where their agents run; those it
 * moved away from work (a cancel from another machine, a lease taken back, a liveness verdict)
 * have their agents stopped here, and a STALE one's work saved first.
 */
export function noteExternal(crew: CrewWork, workerIds?: readonly string[]): void {
  const { agents, host } = crew;
  if (!agents || crew.isDisposed || host === undefined) return;
  const workers = crew.tx.read((reader) =>
    (workerIds ? workerIds.flatMap((id) => findWorker(reader, id) ?? []) : listWorkersOnHost(reader, host)).filter(
      (worker) => worker.host === host,
    ),
  );
  for (const worker of workers) {
    // A start queued twice finds the worker WORKING the second time and is refused: one launch.
    if (worker.state === WorkerState.Assigned) void crew.serialized(worker.id, () => startWorker(crew, worker.id));
    else if (stoppedStates.has(worker.state) && agents.signals(worker.id)?.alive) {
      const work = worker.state === WorkerState.Stale ? crew.workOf(worker) : undefined;
      void crew.serialized(worker.id, async () => {
        await crew.stopAgent(worker.id);
        if (work) await crew.git.snapshot(work, `agent stopped: ${worker.last_error ?? 'moved by another owner'}`);
      });
    }
  }
}

/** After an owner restart: agents of WORKING workers are gone; save their work and retry. */
export async function recoverOrphans(crew: CrewWork): Promise<void> {
  const { tx, agents } = crew;
  // Another owner's agents run on its machine: only this host's workers are orphans of a restart here.
  const workers = tx.read((reader) => listWorkersWithAgents(reader)).filter((worker) => crew.runsHere(worker, true));
  for (const worker of workers) {
    if (worker.state === WorkerState.Assigned) {
      void crew.serialized(worker.id, () => startWorker(crew, worker.id));
      continue;
    }
    if (agents?.signals(worker.id)?.alive) continue;
    await crew.serialized(worker.id, async () => {
      const work = crew.workOf(worker);
      if (work) await crew.git.snapshot(work, 'owner restarted');
      // Stopped by its watchdog with the last owner (ownerWatch.ts): said as such, not as a lost agent.
      const stopped = work ? agents?.stoppedWithOwner?.(work) : undefined;
      tx.internal('monitor', (unit, s) => {
        const current = findWorker(unit.tx, worker.id);
        if (current?.state !== WorkerState.Working) return ok(undefined);
        const reason = stopped ? `owner restarted: ${stopped.reason}` : 'owner restarted: its agent is not running';
        setWorkerLastError(unit.tx, worker.id, reason);
        return s.state.fail(unit, worker.id, reason);
      });
    });
  }
}

/**
 * After a submit, however it came (the crew's or the agent's own): the branch goes to the shared
 * remote for reviewers on other machines. A refused push leaves everything here as it was and
 * says why on the worker; the review goes on, and a merge from this machine still works.
 */
async function publish(crew: CrewWork, workerId: string): Promise<void> {
  const { git, tx } = crew;
  const publishBranch = git.publish?.bind(git);
  const worker = publishBranch ? tx.read((reader) => findWorker(reader, workerId)) : undefined;
  const work = worker?.state === WorkerState.InReview ? crew.workOf(worker) : undefined;
  if (!publishBranch || !work) return;
  const pushed = await publishBranch(work);
  if (pushed.ok) return;
  const reason = `push of ${work.branch} failed: ${pushed.message}`;
  crew.settings.log?.(`crew: ${reason}`);
  tx.internal('crew', (unit) => {
    const current = findWorker(unit.tx, workerId);
    if (current?.task_id === work.taskId && current.attempt === work.attempt)
      setWorkerLastError(unit.tx, workerId, reason.slice(0, 10_000));
    return ok(undefined);
  });
}
