import type { PlanningPhase, TaskStatus } from '../core/taskMachine';
import type { WorkerState } from '../core/workerMachine';

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

// The lookups live with their tables in ./queries; re-exported here for the callers that import them from rows.
export { findTask } from './queries/tasks';
export { findWorker } from './queries/workers';
export { readMeta } from './queries/meta';
