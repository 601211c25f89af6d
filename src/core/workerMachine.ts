import { type Result, ok, refused } from './result';

/** Worker states of seed 000. */
export const WorkerState = {
  Idle: 'IDLE',
  Assigned: 'ASSIGNED',
  Working: 'WORKING',
  InReview: 'IN_REVIEW',
  Approved: 'APPROVED',
  Completed: 'COMPLETED',
  Stale: 'STALE',
  /** The agent hit its plan's usage or rate limit: it waits for the reset, then resumes its session. */
  Paused: 'PAUSED',
  Failed: 'FAILED',
} as const;
export type WorkerState = (typeof WorkerState)[keyof typeof WorkerState];
export const workerStates = Object.values(WorkerState);

/** Everything that can move a worker, named after why it moves. */
export const WorkerTrigger = {
  assign: 'assign',
  start: 'start',
  setupFailed: 'setupFailed',
  submit: 'submit',
  workFailed: 'workFailed',
  heartbeatTimeout: 'heartbeatTimeout',
  limitReached: 'limitReached',
  resume: 'resume',
  approve: 'approve',
  requestChanges: 'requestChanges',
  reviewTimeout: 'reviewTimeout',
  merge: 'merge',
  mergeConflict: 'mergeConflict',
  /** A check failed on the task's pull request and its failure was sent to the agent (docs/handoff.md). */
  checkFailed: 'checkFailed',
  /** Line comments people left on the task's pull request were sent to the agent. */
  reviewComments: 'reviewComments',
  /** The task's pull request was closed unmerged: its work is back in review. */
  pullRequestClosed: 'pullRequestClosed',
  recover: 'recover',
  dead: 'dead',
  reset: 'reset',
  recycle: 'recycle',
  cancel: 'cancel',
} as const;
export type WorkerTrigger = (typeof WorkerTrigger)[keyof typeof WorkerTrigger];
export const workerTriggers = Object.values(WorkerTrigger);

const { Idle, Assigned, Working, InReview, Approved, Completed, Stale, Paused, Failed } = WorkerState;

/**
 * The whole worker machine (ARCHITECTURE §3): seed 000 plus `cancel`, which returns a busy worker
 * to IDLE and cancels its task, and PAUSED, where a worker whose agent hit a usage limit waits for
 * the reset without spending an attempt. Nothing else may change a worker's state.
 */
export const workerTransitions: Readonly<Record<WorkerState, Readonly<Partial<Record<WorkerTrigger, WorkerState>>>>> = {
  [Idle]: { assign: Assigned },
  [Assigned]: { start: Working, setupFailed: Failed, cancel: Idle },
  [Working]: { submit: InReview, workFailed: Failed, heartbeatTimeout: Stale, limitReached: Paused, cancel: Idle },
  [InReview]: { approve: Approved, requestChanges: Working, reviewTimeout: Stale, cancel: Idle },
  [Approved]: { merge: Completed, mergeConflict: Working, checkFailed: Working, reviewComments: Working, pullRequestClosed: InReview, cancel: Idle },
  [Completed]: { recycle: Idle },
  [Stale]: { recover: Working, dead: Failed, cancel: Idle },
  [Paused]: { resume: Working, cancel: Idle },
  [Failed]: { reset: Idle },
};

/** Busy workers: they hold a task they are still on, so `cancel` can release it (src/core/actions.ts derives the rest). */
export const busyWorkerStates: readonly WorkerState[] = workerStates.filter((state) => workerTransitions[state].cancel !== undefined);

export function nextWorkerState(from: WorkerState, trigger: WorkerTrigger): Result<WorkerState> {
  const to = workerTransitions[from][trigger];
  if (to) return ok(to);
  const allowed = Object.keys(workerTransitions[from]).join(', ') || 'none';
  return refused('illegalTransition', `A worker in ${from} cannot ${trigger}; from ${from} the allowed triggers are: ${allowed}.`, {
    entity: 'worker',
    from,
    trigger,
  });
}
