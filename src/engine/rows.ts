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
  /** The machine whose owner launches this worker's agents; null: any (a store with one owner). */
  host: string | null;
  /** The owner that handed the worker its current task; null without owner identities. */
  owner_id: string | null;
  /** PAUSED: when its agent's limit resets and the same session resumes (epoch ms). */
  paused_until: number | null;
  /** The row's write count (the store's optimistic check). */
  version: number;
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
  /** 1: its agent plans first and waits for a person to approve the plan (Claude Code's plan mode). */
  plan_first: number;
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
  /** Its pull request (a `pull-request` workspace, docs/handoff.md): number, address, what the forge last said. */
  pr_number: number | null;
  pr_url: string | null;
  pr_state: string | null;
  /** The branch its work is stacked on while an earlier chain step is in review on the forge; null: the base. */
  pr_base: string | null;
  /** The checks last read on its pull request (JSON of `PullRequestChecks`). */
  pr_checks: string | null;
  check_fixes: number;
  /** The row's write count (the store's optimistic check). */
  version: number;
}

// The lookups live with their tables in ./queries; re-exported here for the callers that import them from rows.
import { findTask } from './queries/tasks';
import { findWorker } from './queries/workers';
export { findTask, findWorker };
export { readMeta } from './queries/meta';

/** A worker this transaction has just written: its absence is a bug, said as such. */
export function requireWorker(reader: Reader, id: string): WorkerRow {
  const worker = findWorker(reader, id);
  if (!worker) throw new Error(`bug: worker '${id}' is missing right after it was written`);
  return worker;
}

/** A task this transaction has just written: its absence is a bug, said as such. */
export function requireTask(reader: Reader, id: string): TaskRow {
  const task = findTask(reader, id);
  if (!task) throw new Error(`bug: task '${id}' is missing right after it was written`);
  return task;
}
