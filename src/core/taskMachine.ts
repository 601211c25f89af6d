import { type Result, ok, refused } from './result';

/** Task lifecycle of seed 001: lifecycle only; planning and blocking are separate fields. */
export const TaskStatus = {
  Idle: 'idle',
  Queued: 'queued',
  Running: 'running',
  Done: 'done',
  Failed: 'failed',
  Cancelled: 'cancelled',
} as const;
export type TaskStatus = (typeof TaskStatus)[keyof typeof TaskStatus];
export const taskStatuses = Object.values(TaskStatus);

export const TaskTrigger = {
  enqueue: 'enqueue',
  run: 'run',
  claim: 'claim',
  complete: 'complete',
  fail: 'fail',
  cancel: 'cancel',
  reset: 'reset',
  retry: 'retry',
} as const;
export type TaskTrigger = (typeof TaskTrigger)[keyof typeof TaskTrigger];
export const taskTriggers = Object.values(TaskTrigger);

/** Planning phase of a parent task (seed 001 §1). */
export const PlanningPhase = { None: 'none', Active: 'active', Finalized: 'finalized' } as const;
export type PlanningPhase = (typeof PlanningPhase)[keyof typeof PlanningPhase];

const { Idle, Queued, Running, Done, Failed, Cancelled } = TaskStatus;

/** The whole task machine of seed 001 §2. */
export const taskTransitions: Readonly<Record<TaskStatus, Readonly<Partial<Record<TaskTrigger, TaskStatus>>>>> = {
  [Idle]: { enqueue: Queued, run: Running },
  [Queued]: { claim: Running, cancel: Cancelled, reset: Idle },
  [Running]: { complete: Done, fail: Failed, cancel: Cancelled },
  [Done]: { reset: Idle },
  [Failed]: { reset: Idle, retry: Queued },
  [Cancelled]: { reset: Idle, retry: Queued },
};

export const terminalTaskStatuses: readonly TaskStatus[] = [Done, Failed, Cancelled];

export function nextTaskStatus(from: TaskStatus, trigger: TaskTrigger): Result<TaskStatus> {
  const to = taskTransitions[from][trigger];
  if (to) return ok(to);
  const allowed = Object.keys(taskTransitions[from]).join(', ') || 'none';
  return refused('illegalTransition', `A task in ${from} cannot ${trigger}; from ${from} the allowed triggers are: ${allowed}.`, {
    entity: 'task',
    from,
    trigger,
  });
}
