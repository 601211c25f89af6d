import type { Tx } from './ports';
import type { TaskStatus } from '../core/taskMachine';
import type { WorkerState } from '../core/workerMachine';

/** What the engine announces after a commit. */
export type EngineEvent =
  | { readonly kind: 'worker'; readonly id: string; readonly from: WorkerState; readonly to: WorkerState; readonly trigger: string }
  | { readonly kind: 'task'; readonly id: string; readonly from: TaskStatus; readonly to: TaskStatus; readonly trigger: string }
  | { readonly kind: 'created'; readonly entity: 'worker' | 'task'; readonly id: string }
  | { readonly kind: 'unblocked'; readonly id: string; readonly after: string }
  /**
   * A heartbeat, or a person's answer to a wait. `mayEndWait`: it may have ended a wait for input,
   * which is the only way a beat can bring a liveness deadline nearer; any other beat moves the
   * worker's last sign of life later (the waker leaves such a worker's deadline as it was).
   */
  | { readonly kind: 'heartbeat'; readonly workerId: string; readonly mayEndWait: boolean }
  | { readonly kind: 'message'; readonly seq: number; readonly to: string | null }
  | { readonly kind: 'rejected'; readonly entity: 'worker' | 'task'; readonly id: string; readonly code: string }
  /** Rows written or deleted outside a transition (usage, archived tasks, a chain's planning phase): views read them again. */
  | { readonly kind: 'rowsChanged'; readonly workers: readonly string[]; readonly tasks: readonly string[] };

/**
 * One unit of work: a transaction plus who asked, when, and the events to fire once it commits.
 * Time is fixed for the whole unit so every row written by one request carries the same instant.
 */
export interface Unit {
  readonly tx: Tx;
  readonly now: number;
  readonly actor: string;
  readonly requestId: string | undefined;
  readonly events: EngineEvent[];
}

/** The workers and tasks a commit's events name (what another owner's views and waker read again). */
export function changedRowsOf(events: readonly EngineEvent[]): { workers: string[]; tasks: string[] } {
  const workers = new Set<string>();
  const tasks = new Set<string>();
  for (const event of events) {
    if (event.kind === 'worker') workers.add(event.id);
    else if (event.kind === 'task' || event.kind === 'unblocked') tasks.add(event.id);
    else if (event.kind === 'created') (event.entity === 'worker' ? workers : tasks).add(event.id);
    else if (event.kind === 'heartbeat') workers.add(event.workerId);
    else if (event.kind === 'rowsChanged') {
      event.workers.forEach((id) => workers.add(id));
      event.tasks.forEach((id) => tasks.add(id));
    }
  }
  return { workers: [...workers], tasks: [...tasks] };
}
