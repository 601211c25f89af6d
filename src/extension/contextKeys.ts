import type { StatusSnapshot } from '../engine/statusView';
import { WorkerState } from '../core/workerMachine';

/** What a folder's session says of itself, for the context keys (a part of ForemanSession). */
export interface ContextSource {
  readonly ownerNote: string | undefined;
  snapshot(): StatusSnapshot;
}

/** Workers whose task has reached a person's review, or gone past it. */
const reviewed = new Set<string>([WorkerState.InReview, WorkerState.Approved, WorkerState.Completed]);

/**
 * The `foreman.*` context keys the window sets from its sessions' state: the views' welcome
 * content and menus read them, and the Get Started walkthrough ticks its steps by them
 * (`onContext:` completion events), so a workspace set up from the CLI, or in another window,
 * shows its steps done as well as one whose buttons were clicked here.
 */
export function contextKeys(sessions: readonly ContextSource[]): Record<string, boolean> {
  const snapshots = sessions.map((session) => session.snapshot());
  const workers = snapshots.flatMap((snapshot) => snapshot.workers);
  const tasks = snapshots.flatMap((snapshot) => snapshot.tasks);
  return {
    'foreman.active': sessions.length > 0,
    'foreman.noWorkers': workers.length === 0,
    'foreman.noTasks': tasks.length === 0,
    'foreman.readOnly': sessions.some((session) => Boolean(session.ownerNote)),
    'foreman.hasWorker': workers.length > 0,
    'foreman.hasTask': tasks.length > 0,
    // A review waiting or done: a worker in or past review, or a task merged (Done).
    'foreman.hasReview': workers.some((worker) => reviewed.has(worker.state)) || tasks.some((task) => task.status === 'done'),
  };
}
