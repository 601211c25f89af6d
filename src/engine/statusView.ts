import type { Liveness } from '../core/policies';
import type { Monitor } from './monitor';
import type { Reader } from './ports';
import { type TaskRow, type WorkerRow, readMeta } from './rows';

/** A worker as `foreman status --json` and the UI show it. */
export interface WorkerStatus {
  readonly id: string;
  readonly state: string;
  readonly agent: string;
  readonly taskId: string | null;
  readonly branch: string | null;
  readonly attempt: number;
  /** Epoch ms of the last heartbeat, or null when it never sent one. */
  readonly lastHeartbeatMs: number | null;
  readonly heartbeatAgeMs: number | null;
  readonly progress: number | null;
  readonly liveness: Liveness;
  readonly livenessReason: string;
  readonly stateChangedAt: number;
  readonly lastError: string | null;
  readonly note: string | null;
  readonly summary: string | null;
}

export interface TaskStatusView {
  readonly id: string;
  readonly title: string;
  readonly status: string;
  readonly blockedBy: string | null;
  readonly workerId: string | null;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly parentId: string | null;
  readonly planningPhase: string;
  readonly scheduledFor: number | null;
  readonly lastError: string | null;
  readonly manual: boolean;
}

export interface StatusSnapshot {
  readonly baseBranch: string | null;
  readonly workers: WorkerStatus[];
  readonly tasks: TaskStatusView[];
}

export function readStatus(reader: Reader, monitor: Monitor, now: number): StatusSnapshot {
  const verdicts = monitor.verdicts(reader, now);
  const progress = new Map(
    reader
      .all<{ agent_id: string; progress: number | null }>('SELECT agent_id, progress FROM heartbeats')
      .map((row) => [row.agent_id, row.progress]),
  );
  const workers = reader.all<WorkerRow>('SELECT * FROM workers ORDER BY id').map((worker): WorkerStatus => {
    const verdict = verdicts.get(worker.id)!;
    return {
      id: worker.id,
      state: worker.state,
      agent: worker.agent,
      taskId: worker.task_id,
      branch: worker.branch,
      attempt: worker.attempt,
      lastHeartbeatMs: verdict.lastHeartbeatMs,
      heartbeatAgeMs: verdict.lastHeartbeatMs === null ? null : now - verdict.lastHeartbeatMs,
      progress: progress.get(worker.id) ?? null,
      liveness: verdict.level,
      livenessReason: verdict.reason,
      stateChangedAt: worker.state_changed_at,
      lastError: worker.last_error,
      note: worker.note,
      summary: worker.summary,
    };
  });
  // Only the columns the view shows: prompts and results can be long, and this runs on every change.
  const tasks = reader
    .all<TaskRow>(
      `SELECT id, title, status, blocked_by_task_id, worker_id, attempt, max_attempts, parent_task_id, planning_phase,
            scheduled_for, last_error, auto_dispatch FROM tasks ORDER BY sort_order, created_at`,
    )
    .map((task): TaskStatusView => ({
      id: task.id,
      title: task.title,
      status: task.status,
      blockedBy: task.blocked_by_task_id,
      workerId: task.worker_id,
      attempt: task.attempt,
      maxAttempts: task.max_attempts,
      parentId: task.parent_task_id,
      planningPhase: task.planning_phase,
      scheduledFor: task.scheduled_for,
      lastError: task.last_error,
      manual: task.auto_dispatch === 0,
    }));
  return { baseBranch: readMeta(reader, 'base_branch') ?? null, workers, tasks };
}
