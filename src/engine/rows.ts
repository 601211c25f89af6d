import type { PlanningPhase, TaskStatus } from '../core/taskMachine';
import type { WorkerState } from '../core/workerMachine';
import type { Reader } from './ports';

/** A worker as stored. */
export interface WorkerRow {
  id: string;
  state: WorkerState;
  agent: string;
  max_attempts: number | null;
  task_id: string | null;
  branch: string | null;
  attempt: number;
  last_error: string | null;
  note: string | null;
  summary: string | null;
  state_changed_at: number;
  created_at: number;
}

/** A task as stored. */
export interface TaskRow {
  id: string;
  title: string;
  prompt: string;
  status: TaskStatus;
  planning_phase: PlanningPhase;
  blocked_by_task_id: string | null;
  parent_task_id: string | null;
  auto_dispatch: number;
  attempt: number;
  max_attempts: number;
  sort_order: number;
  scheduled_for: number | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  result: string | null;
  last_error: string | null;
  worker_id: string | null;
  last_worker_id: string | null;
  branch: string | null;
  previous_branch: string | null;
}

export function findWorker(reader: Reader, id: string): WorkerRow | undefined {
  return reader.get<WorkerRow>('SELECT * FROM workers WHERE id = ?', [id]);
}

export function findTask(reader: Reader, id: string): TaskRow | undefined {
  return reader.get<TaskRow>('SELECT * FROM tasks WHERE id = ?', [id]);
}

export function readMeta(reader: Reader, key: string): string | undefined {
  return reader.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value;
}
