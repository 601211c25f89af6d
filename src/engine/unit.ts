import type { Tx } from './ports';
import type { TaskStatus } from '../core/taskMachine';
import type { WorkerState } from '../core/workerMachine';

/** What the engine announces after a commit. */
export type EngineEvent =
  | { readonly kind: 'worker'; readonly id: string; readonly from: WorkerState; readonly to: WorkerState; readonly trigger: string }
  | { readonly kind: 'task'; readonly id: string; readonly from: TaskStatus; readonly to: TaskStatus; readonly trigger: string }
  | { readonly kind: 'created'; readonly entity: 'worker' | 'task'; readonly id: string }
  | { readonly kind: 'unblocked'; readonly id: string; readonly after: string }
  | { readonly kind: 'heartbeat'; readonly workerId: string }
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
