import { zeroUsage } from '../../../src/core/agentEvents';
import type { TaskOverlap } from '../../../src/core/overlaps';
import type { StatusSnapshot, TaskStatusView, WorkerStatus } from '../../../src/engine/statusView';
import type { TransitionItem } from '../../../src/shared/protocol';

/** A deterministic crew of any size: workers in every state, chains of `chainLength`, free tasks of every status. */
export function makeStatus(options: { workers: number; tasks: number; chainLength?: number; now?: number }): StatusSnapshot {
  const now = options.now ?? 1_700_000_000_000;
  const chainLength = options.chainLength ?? 20;
  const states = ['WORKING', 'WORKING', 'WORKING', 'IN_REVIEW', 'APPROVED', 'IDLE', 'STALE', 'FAILED', 'ASSIGNED', 'COMPLETED'];
  const tasks: TaskStatusView[] = [];
  const chainTasks = Math.floor(options.tasks * 0.6);
  let index = 0;
  while (tasks.length < chainTasks) {
    const parentId = `chain-${index++}`;
    tasks.push(task(parentId, `Chain ${index}`, 'running', { planningPhase: 'finalized' }));
    for (let step = 0; step < chainLength - 1 && tasks.length < chainTasks; step++) {
      const status = step < 3 ? 'done' : step === 3 ? 'running' : 'queued';
      const id = `${parentId}-s${step}`;
      tasks.push(task(id, `Step ${step} of chain ${index}`, status, { parentId, blockedBy: step > 3 ? `${parentId}-s${step - 1}` : null }));
    }
  }
  const statuses = ['queued', 'queued', 'idle', 'running', 'done', 'done', 'failed', 'cancelled'] as const;
  for (let i = 0; tasks.length < options.tasks; i++) tasks.push(task(`task-${i}`, `Free task ${i}`, statuses[i % statuses.length]!, {}));
  const workers: WorkerStatus[] = [];
  for (let i = 0; i < options.workers; i++) {
    const state = states[i % states.length]!;
    const busy = !['IDLE', 'COMPLETED'].includes(state);
    const taskId = busy ? (tasks[(i * 7) % tasks.length]?.id ?? null) : null;
    workers.push({
      id: `worker-${String(i).padStart(3, '0')}`,
      state,
      agent: 'demo',
      host: null,
      taskId,
      branch: taskId ? `worker-${i}/${taskId}` : null,
      attempt: busy ? 1 + (i % 3) : 0,
      lastHeartbeatMs: busy ? now - (i % 7) * 9_000 : null,
      heartbeatAgeMs: busy ? (i % 7) * 9_000 : null,
      progress: busy ? (i % 10) / 10 : null,
      liveness: state === 'STALE' ? 'STALE' : busy ? (i % 7 >= 4 ? 'WARN' : 'OK') : 'IDLE',
      livenessReason: busy ? `no heartbeat for ${(i % 7) * 9}s` : 'idle',
      stateChangedAt: now - 60_000 * (i % 5),
      lastError: state === 'FAILED' ? 'exit 1' : null,
      note: null,
      summary: state === 'IN_REVIEW' ? 'done, please look' : null,
      activity: state === 'WORKING' ? { text: 'Bash: npm test', at: now - 2_000 } : null,
      needsInput: null,
      confinement: busy ? (i % 5 === 0 ? 'open' : 'sandbox') : null,
      overlaps: [],
      usage: busy
        ? { inputTokens: 1200 * (i + 1), outputTokens: 300 * (i + 1), cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 * (i + 1) }
        : zeroUsage,
    });
  }
  return { baseBranch: 'main', workers, tasks, usage: zeroUsage, owners: [] };
}

function task(id: string, title: string, status: string, extra: Partial<TaskStatusView>): TaskStatusView {
  return {
    id,
    title,
    status,
    blockedBy: null,
    workerId: null,
    attempt: status === 'queued' || status === 'idle' ? 0 : 1,
    maxAttempts: 3,
    parentId: null,
    planningPhase: 'none',
    scheduledFor: null,
    usage: zeroUsage,
    lastError: status === 'failed' ? 'tests failed' : null,
    manual: false,
    overlaps: [],
    ...extra,
  };
}

/** `count` transitions spread over the last hour, oldest first. */
export function makeTransitions(count: number, now = 1_700_000_000_000): TransitionItem[] {
  const items: TransitionItem[] = [];
  for (let i = 0; i < count; i++) {
    const worker = i % 2 === 0;
    items.push({
      seq: i + 1,
      at: now - (count - i) * 1000,
      entity: worker ? 'worker' : 'task',
      id: worker ? `worker-${String(i % 10).padStart(3, '0')}` : `task-${i % 50}`,
      from: worker ? 'WORKING' : 'queued',
      to: worker ? 'IN_REVIEW' : 'running',
      trigger: worker ? 'submit' : 'claim',
      actor: 'cli',
      reason: null,
      attempt: 1,
      severity: 'info',
    });
  }
  return items;
}

/** Two WORKING workers on task-a and task-b, which overlap in the way given; the task rows say it too. */
export function overlapStatus(overlap: TaskOverlap): StatusSnapshot {
  const base = makeStatus({ workers: 0, tasks: 0 });
  const [template] = makeStatus({ workers: 1, tasks: 1 }).workers;
  if (!template) throw new Error('no worker');
  const mirror: TaskOverlap = { ...overlap, taskId: 'task-a', workerId: 'worker-a', title: 'Task A', plan: null };
  const worker = (id: string, taskId: string, overlaps: TaskOverlap[]) => ({
    ...template,
    id,
    state: 'WORKING',
    taskId,
    branch: `${id}/${taskId}`,
    needsInput: null,
    overlaps,
  });
  const task = (id: string, title: string, workerId: string, overlaps: TaskOverlap[]) => ({
    id,
    title,
    status: 'running',
    blockedBy: null,
    workerId,
    attempt: 1,
    maxAttempts: 3,
    parentId: null,
    planningPhase: 'none',
    scheduledFor: null,
    usage: base.usage,
    lastError: null,
    manual: false,
    overlaps,
  });
  return {
    ...base,
    workers: [worker('worker-a', 'task-a', [overlap]), worker('worker-b', 'task-b', [mirror])],
    tasks: [task('task-a', 'Task A', 'worker-a', [overlap]), task('task-b', 'Task B', 'worker-b', [mirror])],
  };
}
