import { z } from 'zod';
import { PlanningPhase, TaskStatus } from '../taskMachine';
import { WorkerState } from '../workerMachine';

/**
 * The answer shapes several command groups share: a worker and a task as stored (snake_case, the
 * store's columns; `status` answers the camelCase views). Answer schemas are strict: a field an
 * answer carries that its schema does not name fails the contract test.
 */

export const workerStateSchema = z.enum(WorkerState);
export const taskStatusSchema = z.enum(TaskStatus);

/** A worker as stored. */
export const workerRowSchema = z.strictObject({
  id: z.string(),
  state: workerStateSchema,
  agent: z.string(),
  max_attempts: z.number().nullable(),
  task_id: z.string().nullable(),
  branch: z.string().nullable(),
  attempt: z.number(),
  last_error: z.string().nullable(),
  note: z.string().nullable(),
  summary: z.string().nullable(),
  state_changed_at: z.number(),
  created_at: z.number(),
  /** The machine whose owner launches this worker's agents; null: any (a store with one owner). */
  host: z.string().nullable(),
  /** The owner that handed the worker its current task; null without owner identities. */
  owner_id: z.string().nullable(),
  /** PAUSED: when its agent's limit resets and the same session resumes (epoch ms). */
  paused_until: z.number().nullable(),
  /** The row's write count (the store's optimistic check). */
  version: z.number(),
});

/** A task as stored. */
export const taskRowSchema = z.strictObject({
  id: z.string(),
  title: z.string(),
  prompt: z.string(),
  status: taskStatusSchema,
  planning_phase: z.enum(PlanningPhase),
  blocked_by_task_id: z.string().nullable(),
  parent_task_id: z.string().nullable(),
  auto_dispatch: z.number(),
  /** 1: its agent plans first and waits for a person to approve the plan (Claude Code's plan mode). */
  plan_first: z.number(),
  attempt: z.number(),
  max_attempts: z.number(),
  sort_order: z.number(),
  scheduled_for: z.number().nullable(),
  created_at: z.number(),
  started_at: z.number().nullable(),
  finished_at: z.number().nullable(),
  result: z.string().nullable(),
  last_error: z.string().nullable(),
  worker_id: z.string().nullable(),
  last_worker_id: z.string().nullable(),
  branch: z.string().nullable(),
  previous_branch: z.string().nullable(),
  /** Its pull request (a `pull-request` workspace, docs/handoff.md): number, address, what the forge last said. */
  pr_number: z.number().nullable(),
  pr_url: z.string().nullable(),
  pr_state: z.string().nullable(),
  /** The branch its work is stacked on while an earlier chain step is in review on the forge; null: the base. */
  pr_base: z.string().nullable(),
  /** The checks last read on its pull request (JSON). */
  pr_checks: z.string().nullable(),
  check_fixes: z.number(),
  /** The row's write count (the store's optimistic check). */
  version: z.number(),
});

/** A parent task and its children, as `chain.add` and `plan.finalize` answer. */
export const chainViewSchema = z.strictObject({ parent: taskRowSchema, children: z.array(taskRowSchema) });

/** The task a worker was handed, with the attempt and branch it works on. */
export const claimedTaskSchema = z.strictObject({ id: z.string(), attempt: z.number(), branch: z.string() });
