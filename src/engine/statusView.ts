import { pullRequestView } from './pullRequestView';
import { workerPhases } from '../core/actions';
import { zeroUsage } from '../core/agentEvents';
import type { TaskOverlap } from '../core/overlaps';
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
import { type TeamLeases, readTeam } from './teamView';
import type { LastTaskFailure, StatusPage, StatusSnapshot, TaskStatusView, WorkerStatus } from './statusShapes';

export type { LastTaskFailure, StatusPage, StatusSnapshot, TaskStatusView, WorkerStatus } from './statusShapes';

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

export type OverlapsOf = (taskId: string | null) => readonly TaskOverlap[];

export function readStatus(
  reader: Reader,
  monitor: Monitor,
  now: number,
  query: StatusQuery = {},
  team?: TeamLeases,
  overlapsOf: OverlapsOf = () => [],
): StatusSnapshot {
  const { head, usage } = readStatusHead(reader, monitor, now, query, team, overlapsOf);
  const only = query.ids;
  const { rows, page } = only
    ? { rows: inBatches(only.tasks, (ids) => listTaskViews(reader, { ids }, 'queue')), page: undefined }
    : readTasks(reader, query);
  const tasks = rows.map((task) => taskStatusView(task, usage, overlapsOf));
  const { baseBranch, workers, usage: total, owners } = head;
  return { baseBranch, workers, tasks, usage: total, owners, ...(page ? { page } : {}) };
}

/** A snapshot's parts other than its tasks, and the usage its tasks are shown with. */
export interface StatusHead {
  readonly head: Omit<StatusSnapshot, 'tasks' | 'page'>;
  readonly usage: ReturnType<typeof usageTotals>;
}

/** Everything `readStatus` shows but the tasks: bounded by the crew, not by the queue. */
export function readStatusHead(
  reader: Reader,
  monitor: Monitor,
  now: number,
  query: StatusQuery,
  team: TeamLeases | undefined,
  overlapsOf: OverlapsOf,
): StatusHead {
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
      overlaps: overlapsOf(worker.task_id),
    };
  });
  return {
    head: { baseBranch: readMeta(reader, 'base_branch') ?? null, workers, usage: usage.total, owners: owners?.owners ?? [] },
    usage,
  };
}

/** One task as a snapshot shows it. */
export function taskStatusView(task: TaskViewRow, usage: StatusHead['usage'], overlapsOf: OverlapsOf): TaskStatusView {
  return {
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
    overlaps: overlapsOf(task.id),
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

/** The tasks a status query narrows to (statuses, worker, since). */
export function taskFilterOf(query: StatusQuery): TaskFilter {
  return {
    ...(query.statuses ? { statuses: query.statuses } : {}),
    ...(query.worker !== undefined ? { worker: query.worker } : {}),
    ...(query.since !== undefined ? { since: query.since } : {}),
  };
}

/**
 * The tasks a query asks for, in queue order. Without a limit, all that match (the views need
 * them all). With one, a page that never reads more rows than it shows: the active tasks first
 * (queue order, on the picker's index), then the most recently finished, so that `foreman status`
 * on a store with months of history shows the work in hand (issue 13).
 */
function readTasks(reader: Reader, query: StatusQuery): { rows: TaskViewRow[]; page: StatusPage | undefined } {
  const filter = taskFilterOf(query);
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
