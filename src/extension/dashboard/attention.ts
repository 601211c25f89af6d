import { workerFits } from '../../core/actions';
import { TaskStatus } from '../../core/taskMachine';
import { WorkerState } from '../../core/workerMachine';
import type { StatusSnapshot, TaskStatusView, WorkerStatus } from '../../engine/statusView';
import { shownLiveness, troubleReason } from '../../shared/livenessWords';
import type { AttentionItem } from '../../shared/protocol';
import { inputAttentionActions } from './actionPolicy';

/** Attention items beyond this are counted in the section's header but not listed. */
const attentionLimit = 100;

/**
 * What waits for a person, each thing once: an agent's question, a review, a merge, a stuck agent,
 * a task that failed for good (its worker, FAILED too, is not listed again as stuck).
 */
export function attention(
  status: StatusSnapshot,
  taskById: Map<string, TaskStatusView>,
  isParent: (task: TaskStatusView) => boolean,
): AttentionItem[] {
  const items: AttentionItem[] = [];
  const titleOf = (worker: WorkerStatus) => (worker.taskId ? (taskById.get(worker.taskId)?.title ?? worker.taskId) : worker.id);
  for (const worker of status.workers) {
    const base = { workerId: worker.id, taskId: worker.taskId, title: titleOf(worker), since: worker.stateChangedAt };
    // An agent's question blocks its run until someone answers, so it leads the list.
    if (worker.needsInput) {
      items.unshift({
        ...base,
        since: worker.needsInput.at,
        kind: 'input',
        detail: worker.needsInput.message,
        actions: [...inputAttentionActions],
      });
    } else if (workerFits('approve', worker.state)) {
      items.push({
        ...base,
        kind: 'review',
        detail: worker.summary ?? 'ready for review',
        actions: ['approve', 'requestChanges', 'showChanges'],
      });
    } else if (workerFits('merge', worker.state)) {
      items.push({ ...base, kind: 'merge', detail: 'approved, waiting to be merged', actions: ['merge', 'showChanges'] });
    } else if (worker.taskId && (worker.state === WorkerState.Stale || shownLiveness(worker) === 'STALE' || shownLiveness(worker) === 'DEAD')) {
      // Only while an agent should run: a FAILED worker (DEAD by construction) is its task's Failed item below.
      items.push({ ...base, kind: 'stale', detail: troubleReason(worker), actions: ['showLog', 'cancel'] });
    }
  }
  for (const task of status.tasks) {
    if (items.length >= attentionLimit) break;
    if (task.status !== TaskStatus.Failed) continue;
    const detail = task.lastError ?? `failed after ${task.attempt} of ${task.maxAttempts} attempts`;
    items.push({
      kind: 'failed',
      workerId: task.workerId,
      taskId: task.id,
      title: task.title,
      detail,
      since: null,
      actions: isParent(task) ? [] : ['retry'],
    });
  }
  return items.slice(0, attentionLimit);
}
