import { pullRequestView, type PullRequestView } from './pullRequestView';
import { workerPhases } from '../core/actions';
import { type Usage, zeroUsage } from '../core/agentEvents';
import type { AgentConfinement } from '../core/agentConfinement';
import type { Liveness } from '../core/policies';
import { WorkerState } from '../core/workerMachine';
import type { CommandArgs } from '../core/requests';
import { findSession, usageTotals } from './agentSessions';
import type { Monitor } from './monitor';
import type { Reader } from './ports';
import {
  type BeatRow,
  type TaskFilter,
  type TaskViewRow,
  countTasks,
  countTasksByStatus,
  listBeats,
  listBeatsOf,
  listRollups,
  listTaskViews,
  listWorkers,
  listWorkersById,
  maxIdsPerRead,
  readMeta,
} from './queries';
import { listFailedManualTasks } from './queries/failedManualTasks';
import type { WorkerRow } from './rows';
import { type HostOwner, type OwnerStatus, type TeamLeases, readTeam } from './teamView';

/** A worker as `foreman status --json` and the UI show it. */
export interface WorkerStatus {
  readonly id: string;
  readonly state: string;
  readonly agent: string;
  /** The machine whose owner launches its agents; null: any (a store with one owner). */
  readonly host: string | null;
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
  /**
   * The agent's own session of the attempt the worker holds (Claude Code session id, Codex thread
   * id): what `claude --resume` / `codex resume` continue by hand. Absent before the agent said it.
   */
  readonly sessionId?: string;
  /** The agent kind whose session `sessionId` is (claude, codex). */
  readonly sessionKind?: string;
  /**
   * How the run of the attempt the worker holds is confined (`open`: unconfined, shown with a
   * warning); null with no task, or before its launch said.
   */
  readonly confinement: AgentConfinement | null;
  /**
   * Present only on an IDLE worker whose last task was a manual one that failed and now waits for
   * a person (the queue never hands a manual task out by itself): Retry runs it on this worker again.
   */
  readonly lastTaskFailed?: LastTaskFailure;
  /** PAUSED on its agent's usage or rate limit: when it resumes the same session (epoch ms). */
  readonly pausedUntil?: number;
  /**
   * On a store several owners share, for a worker bound to a machine: that machine's owner. Not
   * alive: a dead (or stopped) machine's worker, which nothing launches until an owner runs there.
   */
  readonly hostOwner?: HostOwner;
}

/** A manual task that failed on this worker and waits: what `livenessReason` then says, as data. */
export interface LastTaskFailure {
  readonly taskId: string;
  readonly title: string;
  /** `queued`: requeued with attempts left; `failed`: no attempt left, Retry grants one. */
  readonly status: string;
  readonly reason: string;
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
  /** Its pull request, in a `pull-request` workspace (docs/handoff.md). */
  readonly pullRequest?: PullRequestView;
}

export interface StatusSnapshot {
  readonly baseBranch: string | null;
  readonly workers: WorkerStatus[];
  readonly tasks: TaskStatusView[];
  /** Tokens and cost of every run so far. */
  readonly usage: Usage;
  /** The owners of a store several machines share, with their leases (teamView.ts); empty with one owner. */
  readonly owners: OwnerStatus[];
  /** With a `limit`: which part of the tasks this is, and how many there are of each status. */
  readonly page?: StatusPage;
}

export interface StatusPage {
  readonly limit: number;
  /** Tasks in the store; those the filters match; those shown. */
  readonly total: number;
  readonly matching: number;
  readonly shown: number;
  /** Every task by status, whatever the filters. */
  readonly counts: Readonly<Record<string, number>>;
  /** Finished tasks moved to the archive (retention), not among these: `foreman history <id>` reads one. */
  readonly archived: number;
}

export type StatusQuery = CommandArgs<'status'>;

/** States in which an agent runs, so its activity and waits mean something. */
const agentStates: ReadonlySet<string> = new Set(workerPhases.attemptUnderWay);

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

/** Progress said about the task the worker holds now; a new task starts with none, not the last one's. */
function progressOf(worker: WorkerRow, beat: BeatRow | undefined): number | null {
  return beat && beat.current_task === worker.task_id && beat.attempt === worker.attempt ? beat.progress : null;
}

/** The session of the attempt the worker holds, when its agent reported one (one indexed read per such worker). */
function sessionOf(reader: Reader, worker: WorkerRow): Pick<WorkerStatus, 'sessionId' | 'sessionKind' | 'confinement'> {
  const session = worker.task_id ? findSession(reader, worker.task_id, worker.attempt) : undefined;
  const confinement = session?.confinement ?? null;
  return session?.sessionId ? { sessionId: session.sessionId, sessionKind: session.kind, confinement } : { confinement };
}

export function readStatus(reader: Reader, monitor: Monitor, now: number, query: StatusQuery = {}, team?: TeamLeases): StatusSnapshot {
  const only = query.ids;
  const owners = team ? readTeam(reader, now, team) : undefined;
  const verdicts = monitor.verdicts(reader, now, only?.workers);
  const beats = new Map(
    (only ? inBatches(only.workers, (ids) => listBeatsOf(reader, ids)) : listBeats(reader)).map((row) => [row.agent_id, row]),
  );
  const usage = usageTotals(reader, only);
  const workerRows = only ? inBatches(only.workers, (ids) => listWorkersById(reader, ids)) : listWorkers(reader);
  const failures = lastFailures(reader, workerRows);
  const workers = workerRows.map((worker): WorkerStatus => {
    const verdict = verdicts.get(worker.id);
    if (!verdict) throw new Error(`bug: no liveness verdict for worker '${worker.id}' in the same read`);
    const failure = failures.get(worker.id);
    const hostOwner = owners?.hostOwner(worker.host);
    return {
      id: worker.id,
      state: worker.state,
      agent: worker.agent,
      host: worker.host,
      taskId: worker.task_id,
      branch: worker.branch,
      attempt: worker.attempt,
      lastHeartbeatMs: verdict.lastHeartbeatMs,
      heartbeatAgeMs: verdict.lastHeartbeatMs === null ? null : now - verdict.lastHeartbeatMs,
      progress: progressOf(worker, beats.get(worker.id)),
      liveness: verdict.level,
      livenessReason: failure ? idleReason(failure) : verdict.reason,
      stateChangedAt: worker.state_changed_at,
      ...(worker.state === WorkerState.Paused && worker.paused_until !== null ? { pausedUntil: worker.paused_until } : {}),
      lastError: worker.last_error,
      note: worker.note,
      summary: worker.summary,
      ...signalsOf(worker, beats.get(worker.id)),
      usage: usage.byWorker.get(worker.id) ?? zeroUsage,
      ...sessionOf(reader, worker),
      ...(failure ? { lastTaskFailed: failure } : {}),
      ...(hostOwner ? { hostOwner } : {}),
    };
  });
  const { rows, page } = only
    ? { rows: inBatches(only.tasks, (ids) => listTaskViews(reader, { ids }, 'queue')), page: undefined }
    : readTasks(reader, query);
  const tasks = rows.map((task): TaskStatusView => ({
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
    ...pullRequestView(task),
  }));
  return {
    baseBranch: readMeta(reader, 'base_branch') ?? null,
    workers,
    tasks,
    usage: usage.total,
    owners: owners?.owners ?? [],
    ...(page ? { page } : {}),
  };
}

/** Bounds the agent's reason inside the sentence: the whole of it is the task's last error. */
const reasonChars = 300;

/** The IDLE workers whose last task is a failed manual one, by worker id. */
function lastFailures(reader: Reader, workers: readonly WorkerRow[]): Map<string, LastTaskFailure> {
  const failures = new Map<string, LastTaskFailure>();
  if (!workers.some((worker) => worker.state === WorkerState.Idle)) return failures;
  const idle = new Set(workers.filter((worker) => worker.state === WorkerState.Idle).map((worker) => worker.id));
  for (const task of listFailedManualTasks(reader)) {
    if (!idle.has(task.last_worker_id)) continue;
    const reason = (task.last_error ?? '').replace(/\s+/g, ' ').trim();
    failures.set(task.last_worker_id, {
      taskId: task.id,
      title: task.title,
      status: task.status,
      reason: reason.length > reasonChars ? `${reason.slice(0, reasonChars - 1)}…` : reason,
    });
  }
  return failures;
}

/** "last task fix-login failed: pid 7 exited 1 at 12:00:00: tests are red — Retry to run it again". */
export function idleReason(failure: LastTaskFailure): string {
  return `last task ${failure.taskId} failed: ${failure.reason} — Retry to run it again`;
}

/** Reads ids in lists of at most `maxIdsPerRead`; each batch comes back in its own order. */
function inBatches<T>(ids: readonly string[], read: (batch: readonly string[]) => T[]): T[] {
  const rows: T[] = [];
  for (let start = 0; start < ids.length; start += maxIdsPerRead) rows.push(...read(ids.slice(start, start + maxIdsPerRead)));
  return rows;
}

/**
 * The tasks a query asks for, in queue order. Without a limit, all that match (the views need
 * them all). With one, a page that never reads more rows than it shows: the active tasks first
 * (queue order, on the picker's index), then the most recently finished, so that `foreman status`
 * on a store with months of history shows the work in hand (issue 13).
 */
function readTasks(reader: Reader, query: StatusQuery): { rows: TaskViewRow[]; page: StatusPage | undefined } {
  const filter: TaskFilter = {
    ...(query.statuses ? { statuses: query.statuses } : {}),
    ...(query.worker !== undefined ? { worker: query.worker } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
  };
  if (query.limit === undefined) return { rows: listTaskViews(reader, filter, 'queue'), page: undefined };

  const counts = countTasksByStatus(reader);
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const matching = Object.keys(filter).length ? countTasks(reader, filter) : total;
  // The `finished` rollups, one row per status, as `metrics` reads them.
  const archived = listRollups(reader, 'finished').reduce((sum, row) => sum + row.count, 0);
  if (matching <= query.limit) {
    return {
      rows: listTaskViews(reader, filter, 'queue'),
      page: { limit: query.limit, total, matching, shown: matching, counts, archived },
    };
  }
  const active = listTaskViews(reader, { ...filter, finished: false }, 'queue', query.limit);
  const rest = query.limit - active.length;
  const done = rest > 0 ? listTaskViews(reader, { ...filter, finished: true }, 'recentlyFinished', rest) : [];
  const rows = [...active, ...done];
  return { rows, page: { limit: query.limit, total, matching, shown: rows.length, counts, archived } };
}
