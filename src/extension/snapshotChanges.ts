import type { StatusSnapshot } from '../engine/statusView';

/** A state a worker or task reached between two snapshots. */
export type StateChange =
  | { readonly kind: 'worker'; readonly id: string; readonly to: string }
  | { readonly kind: 'task'; readonly id: string; readonly to: string };

/**
 * The state changes between consecutive snapshots, for a window that sees the state but not the
 * engine's events: a read-only window learns of the owner's transitions only from the snapshots it
 * reads. The first snapshot is the baseline (what was already so is not news). A state left and
 * re-entered between two reads is missed; each notification is once per attempt anyway.
 */
export class SnapshotChanges {
  private workers: Map<string, string> | undefined;
  private tasks: Map<string, string> | undefined;

  next(snapshot: Pick<StatusSnapshot, 'workers' | 'tasks'>): StateChange[] {
    const workers = new Map(snapshot.workers.map((worker) => [worker.id, `${worker.state}#${worker.attempt}#${worker.taskId ?? ''}`]));
    const tasks = new Map(snapshot.tasks.map((task) => [task.id, `${task.status}#${task.attempt}`]));
    const changes: StateChange[] = [];
    if (this.workers && this.tasks) {
      for (const worker of snapshot.workers) {
        if (this.workers.get(worker.id) !== workers.get(worker.id)) changes.push({ kind: 'worker', id: worker.id, to: worker.state });
      }
      for (const task of snapshot.tasks) {
        if (this.tasks.get(task.id) !== tasks.get(task.id)) changes.push({ kind: 'task', id: task.id, to: task.status });
      }
    }
    this.workers = workers;
    this.tasks = tasks;
    return changes;
  }
}
