import type { WorkerStatus } from '../engine/statusView';
import type { Localizer } from './localizer';

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

/**
 * Why an answer to `asked` (the worker as a person saw it) no longer fits `current` (the same
 * worker now), or undefined while it does. A new question in the same run counts as an ended wait:
 * an "Allow" given for one tool call must never let a different one run.
 */
export function waitEnded(
  asked: Pick<WorkerStatus, 'id' | 'needsInput'>,
  current: Pick<WorkerStatus, 'state' | 'needsInput'> | undefined,
  l10n: Localizer,
): string | undefined {
  if (!current) return l10n.t('{0} is gone', asked.id);
  if (!current.needsInput) return l10n.t('{0} is not waiting for an answer any more (it is {1})', asked.id, current.state);
  const seen = asked.needsInput;
  if (seen && (seen.message !== current.needsInput.message || seen.at !== current.needsInput.at)) {
    return l10n.t('{0} now asks something else: {1}', asked.id, current.needsInput.message);
  }
  return undefined;
}
