import { type TaskStatus, type TaskTrigger, taskStatuses, taskTransitions } from './taskMachine';
import { WorkerState, type WorkerTrigger, workerStates, workerTransitions } from './workerMachine';

/**
 * Which actions fit which state, derived from the transition tables instead of written again in
 * every place that offers an action (the dashboard's action policy, the tree menus' `when`
 * clauses in package.json, the command pick lists, the engine's notion of a busy worker). A test
 * checks package.json against these.
 */

/** The states a worker trigger is legal from, in the machine's order. */
export function workerStatesAccepting(...triggers: readonly WorkerTrigger[]): readonly WorkerState[] {
  return workerStates.filter((state) => triggers.some((trigger) => workerTransitions[state][trigger] !== undefined));
}

/** The states a worker trigger leads to. */
function workerStatesReachedBy(...triggers: readonly WorkerTrigger[]): readonly WorkerState[] {
  const reached = new Set<WorkerState>();
  for (const state of workerStates)
    for (const trigger of triggers) {
      const to = workerTransitions[state][trigger];
      if (to) reached.add(to);
    }
  return workerStates.filter((state) => reached.has(state));
}

/** The states a task trigger is legal from. */
export function taskStatusesAccepting(...triggers: readonly TaskTrigger[]): readonly TaskStatus[] {
  return taskStatuses.filter((status) => triggers.some((trigger) => taskTransitions[status][trigger] !== undefined));
}

/**
 * The states a worker passes through while it holds a task: everything reachable from where
 * `assign` leads without coming back to IDLE, except states whose only way out is `recycle` (a
 * merged worker is recycled in the merge's own transaction, so nobody ever acts on it holding a task).
 */
function taskHoldingStates(): readonly WorkerState[] {
  const held = new Set<WorkerState>();
  const pending = [...workerStatesReachedBy('assign')];
  for (let state = pending.pop(); state !== undefined; state = pending.pop()) {
    if (held.has(state) || state === WorkerState.Idle) continue;
    held.add(state);
    for (const to of Object.values(workerTransitions[state])) pending.push(to);
  }
  const onlyRecycled = (state: WorkerState) => Object.keys(workerTransitions[state]).every((trigger) => trigger === 'recycle');
  return workerStates.filter((state) => held.has(state) && !onlyRecycled(state));
}

/** What a person can do to a worker, by what it needs. */
export const workerRules = {
  assign: workerStatesAccepting('assign'),
  start: workerStatesAccepting('start'),
  approve: workerStatesAccepting('approve'),
  requestChanges: workerStatesAccepting('requestChanges'),
  merge: workerStatesAccepting('merge'),
  /** A busy worker: cancel stops its agent and releases its task. */
  cancel: workerStatesAccepting('cancel'),
  /** Back to IDLE by hand: a failed worker (reset) or a merged one (recycle). */
  reset: workerStatesAccepting('reset', 'recycle'),
  /** Retry the worker's task: the worker failed it. */
  retry: workerStatesReachedBy('setupFailed', 'workFailed', 'dead'),
  /**
   * Retry a failed manual task from the worker that failed it and let go of it (the queue never
   * hands a manual task out by itself): the task is assigned to the worker again, so it must be free.
   */
  retryLastTask: workerStatesAccepting('assign'),
  /** Has a branch, a log and maybe a transcript to look at. */
  holdsTask: taskHoldingStates(),
  /** Its agent has started, so its branch may hold work (the dashboard's Show Changes). */
  hasWork: taskHoldingStates().filter((state) => !workerStatesAccepting('start').includes(state)),
  /**
   * Its agent runs the turn it will hand in: Send Message and Interrupt reach it (Claude Code's
   * stdin). The state `submit` leaves, so a state the machine gains for a stopped agent is not in it.
   */
  talk: workerStatesAccepting('submit'),
  /**
   * Its agent ended its turn and waits for a person's decision: Open Session in Terminal lets the
   * person continue that session by hand (Foreman relaunches it only on their Request Changes).
   */
  takeOver: workerStatesAccepting('requestChanges'),
  /** Its agent may be running now (the dashboard's terminal button). */
  agentMayRun: workerStatesReachedBy('start', 'recover', 'requestChanges', 'mergeConflict', 'checkFailed', 'reviewComments', 'heartbeatTimeout'),
  /** Waiting for a person's review decision (the tree's inline Show Changes). */
  awaitsDecision: workerStatesAccepting('approve', 'merge'),
  /** Any worker (its worktree, a terminal in it). */
  any: workerStates,
} as const satisfies Record<string, readonly WorkerState[]>;
export type WorkerRule = keyof typeof workerRules;

/**
 * Where a worker is, for the engine's own decisions and the views' (not a person's actions): the
 * SQL of the queries binds these lists rather than spelling states out.
 */
export const workerPhases = {
  /**
   * The attempt is under way (set up, running, or gone quiet) and can still fail: it takes one of
   * its machine's places under `concurrency`, and what its agent last said is current.
   */
  attemptUnderWay: workerStatesAccepting('setupFailed', 'workFailed', 'dead'),
  /** Its agent should be running: an owner that starts, or finds the worker in it, launches the agent. */
  agentExpected: workerStatesAccepting('start', 'submit'),
  /** Its agent must not run any more: where a timeout, a failure, a cancel or a reset leaves the worker. */
  agentStopped: workerStatesReachedBy('heartbeatTimeout', 'setupFailed', 'workFailed', 'dead', 'cancel', 'reset', 'recycle'),
  /** A trigger the clock fires waits for it (silence, a dead agent, a limit's reset, an overdue review): the monitor keeps its deadline. */
  onTimer: workerStatesAccepting('heartbeatTimeout', 'dead', 'resume', 'reviewTimeout'),
} as const satisfies Record<string, readonly WorkerState[]>;

/** What a person can do to a task, by its status. */
export const taskRules = {
  /** Runnable by hand: a queued task is claimed, an idle (manual) one is run. */
  assign: taskStatusesAccepting('claim', 'run'),
  cancel: taskStatusesAccepting('cancel'),
  retry: taskStatusesAccepting('retry'),
} as const satisfies Record<string, readonly TaskStatus[]>;
export type TaskRule = keyof typeof taskRules;

/** Whether a worker in `state` fits `rule`. */
export function workerFits(rule: WorkerRule, state: string): boolean {
  return (workerRules[rule] as readonly string[]).includes(state);
}

/** Whether a task in `status` fits `rule`. */
export function taskFits(rule: TaskRule, status: string): boolean {
  return (taskRules[rule] as readonly string[]).includes(status);
}
