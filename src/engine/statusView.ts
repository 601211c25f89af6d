import { type Usage, zeroUsage } from '../core/agentEvents';
import type { Liveness } from '../core/policies';
import { WorkerState } from '../core/workerMachine';
import { usageTotals } from './agentSessions';
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
  /** What the agent last said it was doing ("Bash: npm test"), with when; null before it said anything in this state. */
  readonly activity: { readonly text: string; readonly at: number } | null;
  /** Set while a WORKING agent waits for a person (a permission request); such a worker is not STALE. */
  readonly needsInput: { readonly message: string; readonly at: number } | null;
  /** Tokens and cost of every run this worker made. */
  readonly usage: Usage;
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
  /** Tokens and cost of every attempt of this task; zero when no agent reported any. */
  readonly usage: Usage;
}

export interface StatusSnapshot {
  readonly baseBranch: string | null;
  readonly workers: WorkerStatus[];
  readonly tasks: TaskStatusView[];
  /** Tokens and cost of every run so far. */
  readonly usage: Usage;
}

const beatColumns = 'agent_id, progress, attempt, activity, activity_at, needs_input, needs_input_at';
interface BeatRow {
  agent_id: string;
  progress: number | null;
  attempt: number | null;
  activity: string | null;
  activity_at: number | null;
  needs_input: string | null;
  needs_input_at: number | null;
}

/** States in which an agent runs, so its activity and waits mean something. */
const agentStates: ReadonlySet<string> = new Set([WorkerState.Assigned, WorkerState.Working, WorkerState.Stale]);

/**
 * Activity and waits count only for the worker's current run: said in this attempt, since it
 * entered its current state, while an agent runs. Older ones (before a review) are history.
 */
export function signalsOf(worker: WorkerRow, beat: BeatRow | undefined): Pick<WorkerStatus, 'activity' | 'needsInput'> {
  const current = (at: number | null): at is number =>
    at !== null && at >= worker.state_changed_at && agentStates.has(worker.state) && beat?.attempt === worker.attempt;
  return {
    activity: beat?.activity && current(beat.activity_at) ? { text: beat.activity, at: beat.activity_at } : null,
    needsInput:
      beat?.needs_input && worker.state === WorkerState.Working && current(beat.needs_input_at)
        ? { message: beat.needs_input, at: beat.needs_input_at }
        : null,
  };
}

export function readStatus(reader: Reader, monitor: Monitor, now: number): StatusSnapshot {
  const verdicts = monitor.verdicts(reader, now);
  const beats = new Map(reader.all<BeatRow>(`SELECT ${beatColumns} FROM heartbeats`).map((row) => [row.agent_id, row]));
  const usage = usageTotals(reader);
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
      progress: beats.get(worker.id)?.progress ?? null,
      liveness: verdict.level,
      livenessReason: verdict.reason,
      stateChangedAt: worker.state_changed_at,
      lastError: worker.last_error,
      note: worker.note,
      summary: worker.summary,
      ...signalsOf(worker, beats.get(worker.id)),
      usage: usage.byWorker.get(worker.id) ?? zeroUsage,
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
      usage: usage.byTask.get(task.id) ?? zeroUsage,
    }));
  return { baseBranch: readMeta(reader, 'base_branch') ?? null, workers, tasks, usage: usage.total };
}
