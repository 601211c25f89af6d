import type { WorkerState } from '../core/workerMachine';
import type { CommandName } from '../core/requests';
import type { TransitionEvent } from '../core/transitionLog';
import type { AgentSession } from './agentSessions';
import type { ArchiveState } from './archiveChain';
import type { ArchiveReport } from './archiver';
import type { ChainView } from './chainCoordinator';
import type { Assignment } from './dispatcher';
import type { HeartbeatReceipt } from './heartbeats';
import type { BusMessage } from './messageBus';
import type { Metrics } from './metrics';
import type { ExportStream } from './ports';
import type { ClaimedTask } from './queuePicker';
import type { TaskRow, WorkerRow } from './rows';
import type { StatusSnapshot, WorkerStatus } from './statusView';

/** What a merge landed where, beside the worker row it returns (`foreman merge` prints it). */
export interface MergeReport {
  readonly taskId: string;
  readonly title: string;
  readonly branch: string;
  readonly base: string;
  /** The base's commit before and after the merge. */
  readonly baseBefore: string;
  readonly baseAfter: string;
}

/**
 * What each command answers, one line per command of `src/core/requests.ts`: the handler table is
 * checked against it by the compiler, and every caller (CLI, endpoint, extension) reads typed
 * results from `Engine.execute` instead of casting. A command added there without a line here is
 * a type error.
 */
export interface CommandResults {
  'worker.add': WorkerRow;
  'worker.list': WorkerStatus[];
  'task.add': TaskRow;
  'chain.add': ChainView;
  'plan.start': TaskRow;
  'plan.add': TaskRow;
  'plan.finalize': ChainView;
  assign: ClaimedTask;
  /** null: nothing was runnable. */
  claim: ClaimedTask | null;
  dispatch: Assignment[];
  /** The worker, and the worktree its agent works in. */
  start: WorkerRow & { readonly worktree: string };
  submit: WorkerRow;
  approve: WorkerRow;
  'request-changes': WorkerRow;
  /** `merged` is absent when a repeated request id is answered from the first result. */
  merge: WorkerRow & { readonly merged?: MergeReport };
  /** The worker sent back to work, its task's pull request, and the checks whose failure it was sent. */
  'send-failure': WorkerRow & { readonly pullRequest: number; readonly checks: string[]; readonly conflict?: string };
  'send-review': WorkerRow & { readonly pullRequest: number; readonly comments: number };
  cancel: { worker?: string; task?: string };
  fail: WorkerRow;
  reset: WorkerRow;
  retry: TaskRow;
  heartbeat: HeartbeatReceipt;
  /** `moved`: the worker went STALE now (false: it was no longer WORKING, nothing to do). */
  stall: { worker: string; state: WorkerState; moved: boolean };
  pause: WorkerRow;
  answer: { worker: string; decision: 'allow' | 'deny'; question: string };
  /** Which run of the worker's agent took the message; `waited`: it had been interrupted and waited for one. */
  tell: { worker: string; taskId: string; attempt: number; waited: boolean };
  interrupt: { worker: string; taskId: string; attempt: number };
  usage: AgentSession;
  send: { seq: number; id: string; duplicate: boolean };
  poll: { cursor: number; messages: BusMessage[] };
  ack: { cursor: number; moved: boolean };
  status: StatusSnapshot;
  transitions: TransitionEvent[];
  metrics: Metrics;
  export: Record<ExportStream, number>;
  compact: { removed: number; below: number };
  archive: ArchiveReport;
  'archive.state': ArchiveState;
  /** `task` queued again behind `other`; `wip`: the commit that keeps its work on its branch, when there was any. */
  'overlap.run-after': { task: string; other: string; blockedBy: string; wip: string | null };
  /** `rebased`: `other` had merged already and the worktree was rebased now (null: the plan waits for the merge). */
  'overlap.rebase-when-merged': { task: string; other: string; plan: 'rebase-when-merged'; rebased: string | null };
  'overlap.ignore': { task: string; other: string; ignored: true };
}

/** The value a successful `command` returns. */
export type ResultOf<C extends CommandName> = CommandResults[C];

/** Commands whose success waits for git or an agent (async steps around the guarded transaction), or reaches an agent alone. */
export type FlowCommand =
  | 'start'
  | 'merge'
  | 'send-failure'
  | 'send-review'
  | 'cancel'
  | 'reset'
  | 'tell'
  | 'interrupt'
  | 'overlap.run-after'
  | 'overlap.rebase-when-merged'
  | 'overlap.ignore';
/** Commands that are one transaction and nothing else. */
export type TxCommand = Exclude<CommandName, FlowCommand>;
