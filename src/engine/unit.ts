import { workerPhases } from '../core/actions';
import type { ChangedRows, Tx } from './ports';
import type { TaskStatus } from '../core/taskMachine';
import type { WorkerState } from '../core/workerMachine';

/** What the engine announces after a commit. */
export type EngineEvent =
  | {
      readonly kind: 'worker';
      readonly id: string;
      readonly from: WorkerState;
      readonly to: WorkerState;
      readonly trigger: string;
      /** Its `state_change` message is written already (by the statement that moved it: PostgreSQL's claim). */
      readonly published?: true;
    }
  | {
      readonly kind: 'task';
      readonly id: string;
      readonly from: TaskStatus;
      readonly to: TaskStatus;
      readonly trigger: string;
      /** As the worker's `published`. */
      readonly published?: true;
    }
  | { readonly kind: 'created'; readonly entity: 'worker' | 'task'; readonly id: string }
  | { readonly kind: 'unblocked'; readonly id: string; readonly after: string }
  /**
   * A heartbeat, or a person's answer to a wait. `mayEndWait`: it may have ended a wait for input,
   * which is the only way a beat can bring a liveness deadline nearer; any other beat moves the
   * worker's last sign of life later (the waker leaves such a worker's deadline as it was).
   */
  | {
      readonly kind: 'heartbeat';
      readonly workerId: string;
      readonly mayEndWait: boolean;
      /** Files the agent said it edited (the overlap check, docs/overlaps.md). */
      readonly touched?: readonly string[];
    }
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

/** Events after which there may be new work to hand out (this owner's waker, and the others' through NOTIFY). */
export function mayHaveWork(event: EngineEvent): boolean {
  switch (event.kind) {
    case 'task':
      return event.to === 'queued';
    case 'worker':
      // A worker that leaves PAUSED lets the idle workers of its profile take work again.
      return event.to === 'IDLE' || event.from === 'PAUSED';
    case 'unblocked':
      return true;
    case 'created':
      return event.entity === 'worker';
    default:
      return false;
  }
}

/**
 * The states in which the monitor keeps a liveness deadline for a worker (Monitor.deadlineOf): a
 * worker moved into one of them has a deadline that the waker, this owner's or another's, reads.
 */
export const watchedStates: ReadonlySet<WorkerState> = new Set(workerPhases.onTimer);

/**
 * The worker whose liveness deadline an event may bring sooner, if any: one moved into a watched
 * state, or one whose wait for input a beat or an answer may have ended. A plain beat only moves
 * its worker's deadline later, so the waker keeps the earlier one and reads the worker again then.
 */
export function livenessWorkerOf(event: EngineEvent): string | undefined {
  if (event.kind === 'worker') return watchedStates.has(event.to) ? event.id : undefined;
  if (event.kind === 'heartbeat') return event.mayEndWait ? event.workerId : undefined;
  return undefined;
}

/**
 * The workers and tasks a commit's events name (what another owner's views read again), and what
 * the other owners must do about them (ports/store.ts `ChangedRows`). A heartbeat names nothing: liveness
 * is read from the table by whoever needs it (the waker at a deadline, views on a timer), so a beat
 * wakes no other owner (issue 29). A change that makes no work runnable and changes no row outside
 * a transition (a claim, an agent starting or submitting) is `onlyForViews`.
 */
export function changedRowsOf(events: readonly EngineEvent[]): Required<Omit<ChangedRows, 'hosts'>> {
  const workers = new Set<string>();
  const tasks = new Set<string>();
  const liveness = new Set<string>();
  let work = false;
  // Rows a view cannot find in the transitions: new ones, and those changed outside a transition.
  let outsideTransitions = false;
  for (const event of events) {
    if (mayHaveWork(event)) work = true;
    if (event.kind === 'created' || event.kind === 'rowsChanged') outsideTransitions = true;
    if (event.kind === 'worker') {
      workers.add(event.id);
      const watched = livenessWorkerOf(event);
      if (watched !== undefined) liveness.add(watched);
    } else if (event.kind === 'task' || event.kind === 'unblocked') tasks.add(event.id);
    else if (event.kind === 'created') (event.entity === 'worker' ? workers : tasks).add(event.id);
    else if (event.kind === 'rowsChanged') {
      event.workers.forEach((id) => workers.add(id));
      event.tasks.forEach((id) => tasks.add(id));
    }
  }
  return {
    workers: [...workers],
    tasks: [...tasks],
    mayHaveWork: work,
    liveness: [...liveness],
    onlyForViews: !work && !outsideTransitions,
  };
}
