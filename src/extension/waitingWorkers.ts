import type { WorkerStatus } from '../engine/statusView';

/**
 * Which workers began waiting for a person since the last look (ARCHITECTURE §9: notify only where
 * a person is needed, once). A wait is the same wait while the worker, its task, its attempt and
 * the agent's message stay the same; a new question in the same run is a new wait. No `vscode`
 * here, so the rule is tested without a window.
 */
export class WaitingWorkers {
  private readonly seen = new Set<string>();

  /** The workers whose wait is new, each returned once however often the snapshot is read. */
  newlyWaiting(workers: readonly WorkerStatus[]): WorkerStatus[] {
    const fresh: WorkerStatus[] = [];
    for (const worker of workers) {
      if (!worker.needsInput) continue;
      const key = JSON.stringify([worker.id, worker.taskId, worker.attempt, worker.needsInput.message]);
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      fresh.push(worker);
    }
    return fresh;
  }
}
