import { type Usage, zeroUsage } from '../core/agentEvents';
import type { Liveness } from '../core/policies';
import { WorkerState } from '../core/workerMachine';
import type { CommandArgs } from '../core/requests';
import { terminalTaskStatuses } from '../core/taskMachine';
import { usageTotals } from './agentSessions';
import type { Monitor } from './monitor';
import type { Reader, SqlValue } from './ports';
import { type TaskRow, type WorkerRow, readMeta } from './rows';

/** A worker as `foreman status --json` and the UI show it. */
export interface WorkerStatus {
  readonly id: string;
  readonly state: string;
  readonly agent: string;
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
}

export interface StatusSnapshot {
  readonly baseBranch: string | null;
  readonly workers: WorkerStatus[];
  readonly tasks: TaskStatusView[];
  /** Tokens and cost of every run so far. */
  readonly usage: Usage;
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
}

export type StatusQuery = CommandArgs<'status'>;

/** Done, failed and cancelled: shown after the active ones when a page cannot hold every task. */
const finished: readonly string[] = terminalTaskStatuses;
// Only the columns the view shows: prompts and results can be long, and this runs on every change.
const taskColumns = `id, title, status, blocked_by_task_id, worker_id, attempt, max_attempts, parent_task_id, planning_phase,
  scheduled_for, last_error, auto_dispatch`;

const beatColumns = 'agent_id, current_task, progress, attempt, activity, activity_at, needs_input, needs_input_at';
interface BeatRow {
  agent_id: string;
  current_task: string | null;
  progress: number | null;
  attempt: number | null;
  activity: string | null;
  activity_at: number | null;
  needs_input: string | null;
  needs_input_at: number | null;
}

/** States in which an agent runs, so its activity and waits mean something. */
const agentStates: ReadonlySet<string> = new Set([WorkerState.Assigned, WorkerState.Working, WorkerState.Stale]);

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

export function readStatus(reader: Reader, monitor: Monitor, now: number, query: StatusQuery = {}): StatusSnapshot {
  const verdicts = monitor.verdicts(reader, now);
  const beats = new Map(reader.all<BeatRow>(`SELECT ${beatColumns} FROM heartbeats`).map((row) => [row.agent_id, row]));
  const usage = usageTotals(reader);
  const workers = reader.all<WorkerRow>('SELECT * FROM workers ORDER BY id').map((worker): WorkerStatus => {
    const verdict = verdicts.get(worker.id)!;
    return {
      id: worker.id,
      state: worker.state,
      agent: worker.agent,
      taskId: worker.task_id,
      branch: worker.branch,
      attempt: worker.attempt,
      lastHeartbeatMs: verdict.lastHeartbeatMs,
      heartbeatAgeMs: verdict.lastHeartbeatMs === null ? null : now - verdict.lastHeartbeatMs,
      progress: progressOf(worker, beats.get(worker.id)),
      liveness: verdict.level,
      livenessReason: verdict.reason,
      stateChangedAt: worker.state_changed_at,
      lastError: worker.last_error,
      note: worker.note,
      summary: worker.summary,
      ...signalsOf(worker, beats.get(worker.id)),
      usage: usage.byWorker.get(worker.id) ?? zeroUsage,
    };
  });
  const { rows, page } = readTasks(reader, query);
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
  }));
  return { baseBranch: readMeta(reader, 'base_branch') ?? null, workers, tasks, usage: usage.total, ...(page ? { page } : {}) };
}

/**
 * The tasks a query asks for, in queue order. Without a limit, all that match (the views need
 * them all). With one, a page that never reads more rows than it shows: the active tasks first
 * (queue order, on the picker's index), then the most recently finished, so that `foreman status`
 * on a store with months of history shows the work in hand (issue 13).
 */
function readTasks(reader: Reader, query: StatusQuery): { rows: TaskRow[]; page: StatusPage | undefined } {
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (query.statuses) {
    where.push(`status IN (${query.statuses.map(() => '?').join(', ')})`);
    params.push(...query.statuses);
  }
  if (query.worker !== undefined) {
    where.push('(worker_id = ? OR last_worker_id = ?)');
    params.push(query.worker, query.worker);
  }
  if (query.since !== undefined) {
    where.push('(created_at >= ? OR started_at >= ? OR finished_at >= ?)');
    params.push(query.since, query.since, query.since);
  }
  // `finishedOnes`: undefined for every task the filters match, true or false for only the (un)finished ones.
  const clause = (finishedOnes?: boolean): { sql: string; params: SqlValue[] } => {
    const conditions = [...where];
    const values = [...params];
    if (finishedOnes !== undefined) {
      conditions.push(`status ${finishedOnes ? 'IN' : 'NOT IN'} (${finished.map(() => '?').join(', ')})`);
      values.push(...finished);
    }
    return { sql: conditions.length ? `WHERE ${conditions.join(' AND ')}` : '', params: values };
  };
  const select = (order: string, limit?: number, finishedOnes?: boolean): TaskRow[] => {
    const { sql, params: values } = clause(finishedOnes);
    return reader.all<TaskRow>(
      `SELECT ${taskColumns} FROM tasks ${sql} ORDER BY ${order}${limit === undefined ? '' : ` LIMIT ${limit}`}`,
      values,
    );
  };
  const queueOrder = 'sort_order, created_at';
  if (query.limit === undefined) return { rows: select(queueOrder), page: undefined };

  const counts = Object.fromEntries(
    reader.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM tasks GROUP BY status').map((row) => [row.status, row.n]),
  );
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const filtered = clause();
  const matching = where.length
    ? (reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM tasks ${filtered.sql}`, filtered.params)?.n ?? 0)
    : total;
  if (matching <= query.limit) return { rows: select(queueOrder), page: { limit: query.limit, total, matching, shown: matching, counts } };
  const active = select(queueOrder, query.limit, false);
  const rest = query.limit - active.length;
  const done = rest > 0 ? select('finished_at DESC, sort_order', rest, true) : [];
  const rows = [...active, ...done];
  return { rows, page: { limit: query.limit, total, matching, shown: rows.length, counts } };
}
