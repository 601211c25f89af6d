import { branchTemplateParts } from '../../core/branchTemplate';
import type { TaskStatus } from '../../core/taskMachine';
import type { NativeSql, Reader, Tx } from '../ports';
import type { TaskRow } from '../rows';

/**
 * Selecting and claiming work on `tasks` (ARCHITECTURE §4). A claim is one statement, so two
 * claimers can never take the same task: the sub-select and the guarded UPDATE run as one step.
 */

/** Runnable = queued, not blocked, not a chain parent, auto-dispatched (and due: the two candidates below). */
const runnable = `status = 'queued' AND blocked_by_task_id IS NULL AND auto_dispatch = 1 AND planning_phase = 'none'`;

/**
 * The id of the next runnable task (one `?`: now): the first task without a time to wait for (the
 * picker index, migration 0007) and the first due scheduled one (`tasks_scheduled`), whichever comes
 * first in queue order. Neither walks past the tasks still waiting for their time (retry backoffs,
 * scheduled starts). Each candidate is a sub-select of its own so that, on PostgreSQL, each takes
 * its row lock (`FOR UPDATE SKIP LOCKED`): owners claiming at once skip the rows another is taking.
 * SQLite has one writer and no row locks.
 */
const nextRunnableId = (lock: string): string => `SELECT id FROM (
    SELECT * FROM (SELECT id, sort_order, created_at FROM tasks WHERE ${runnable} AND scheduled_for IS NULL
      ORDER BY sort_order, created_at LIMIT 1${lock}) AS unscheduled
    UNION ALL
    SELECT * FROM (SELECT id, sort_order, created_at FROM tasks WHERE ${runnable} AND scheduled_for IS NOT NULL AND scheduled_for <= ?
      ORDER BY sort_order, created_at LIMIT 1${lock}) AS due
  ) AS candidates ORDER BY sort_order, created_at LIMIT 1`;
export const nextRunnableIdSql = { sqlite: nextRunnableId(''), postgres: nextRunnableId(' FOR UPDATE SKIP LOCKED') } as const;

/** The columns a claim sets; `branch` is an SQL expression (a parameter, or built from the task id). */
const claimColumns = (branch: string) => `status = 'running', attempt = attempt + 1, started_at = ?, finished_at = NULL,
  worker_id = ?, last_worker_id = ?, previous_branch = branch, branch = ${branch}, version = version + 1`;

// Without the row locks: a peek takes nothing.
const peekSql = `SELECT * FROM tasks WHERE id = (${nextRunnableId('')})`;

const claimTaskSql = `UPDATE tasks SET ${claimColumns('?')}
       WHERE id = ? AND status = ? AND blocked_by_task_id IS NULL AND planning_phase = 'none'
       RETURNING id, attempt, branch`;

/**
 * PostgreSQL only (data-modifying CTEs, which SQLite lacks): a claim `update` (an UPDATE … RETURNING
 * id, attempt, branch) with the transition row that audits it and the lease row of the claim, as
 * one statement: one round trip to the server where three were (issue 29). Its parameters, after
 * the update's: the audit's time, from-status, trigger, actor, request id and metadata, then the
 * lease's worker, time and end.
 */
function withAuditAndLease(update: string): string {
  return `WITH claimed AS (${update}),
  audit AS (INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, reason, actor, attempt, request_id, metadata)
    SELECT ?, 'task', id, ?, 'running', ?, NULL, ?, attempt, ?, ? FROM claimed),
  lease AS (INSERT INTO task_claims (task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms) SELECT id, ?, attempt, ?, ? FROM claimed
    ON CONFLICT (task_id) DO UPDATE SET claimed_by = excluded.claimed_by, attempt = excluded.attempt,
      claimed_at_ms = excluded.claimed_at_ms, lease_until_ms = excluded.lease_until_ms)
  SELECT id, attempt, branch FROM claimed`;
}

/** What a one-statement claim writes besides the task (`withAuditAndLease`). */
export interface ClaimRecord {
  readonly actor: string;
  readonly requestId: string | null;
  /** The transition's metadata, as JSON text. */
  readonly metadata: string;
  readonly leaseUntil: number;
}

const recordParams = (now: number, from: string, trigger: string, workerId: string, record: ClaimRecord) => [
  now,
  from,
  trigger,
  record.actor,
  record.requestId,
  record.metadata,
  workerId,
  now,
  record.leaseUntil,
];

const claimTaskRecordedSql: NativeSql = { postgres: withAuditAndLease(claimTaskSql) };

/** What a claim returns: the task, its new attempt and the branch that attempt works on. */
export interface ClaimedRow {
  readonly id: string;
  readonly attempt: number;
  readonly branch: string;
}

/**
 * The first `limit` runnable tasks in queue order, due ones included, without claiming (one `?`
 * each: limit, now, limit, limit): the dispatcher prefers among them one whose expected files
 * overlap no running task (docs/overlaps.md). The same two index paths as the claim's.
 */
const candidatesSql = `SELECT * FROM (
    SELECT * FROM (SELECT * FROM tasks WHERE ${runnable} AND scheduled_for IS NULL ORDER BY sort_order, created_at LIMIT ?) AS unscheduled
    UNION ALL
    SELECT * FROM (SELECT * FROM tasks WHERE ${runnable} AND scheduled_for IS NOT NULL AND scheduled_for <= ?
      ORDER BY sort_order, created_at LIMIT ?) AS due
  ) AS candidates ORDER BY sort_order, created_at LIMIT ?`;

export function listRunnableCandidates(reader: Reader, now: number, limit: number): TaskRow[] {
  return reader.all<TaskRow>(candidatesSql, [limit, now, limit, limit]);
}

/** The next runnable task without claiming it. */
export function peekRunnableTask(reader: Reader, now: number): TaskRow | undefined {
  return reader.get<TaskRow>(peekSql, [now]);
}

/**
 * The claim of the next runnable task, compiled once per branch template: the branch is computed
 * inside the statement because the task id is only known there. `literals` are the template's
 * parameters in order, `null` standing for the worker id.
 */
export interface ClaimNextStatement {
  readonly sql: NativeSql;
  /** The same claim with its audit and lease rows, for PostgreSQL only (`withAuditAndLease`). */
  readonly recordedSql: NativeSql;
  readonly literals: readonly (string | null)[];
}

export function compileClaimNext(branchTemplate: string): ClaimNextStatement {
  const parts = branchTemplateParts(branchTemplate);
  const branchSql = parts.map((part) => (part.kind === 'task' ? 'id' : '?')).join(' || ') || "''";
  const claim = (nextId: string): string => `UPDATE tasks SET ${claimColumns(branchSql)}
       WHERE id = (${nextId}) AND status = 'queued'
       RETURNING id, attempt, branch`;
  const postgres = claim(nextRunnableIdSql.postgres);
  return {
    sql: { sqlite: claim(nextRunnableIdSql.sqlite), postgres },
    recordedSql: { postgres: withAuditAndLease(postgres) },
    literals: parts.flatMap((part) => (part.kind === 'literal' ? [part.text] : part.kind === 'worker' ? [null] : [])),
  };
}

/** Claims the next runnable task for a worker, or nothing when none is runnable. */
export function claimNextTask(tx: Tx, statement: ClaimNextStatement, now: number, workerId: string): ClaimedRow | undefined {
  const branchParams = statement.literals.map((literal) => literal ?? workerId);
  return tx.returning<ClaimedRow>(statement.sql, [now, workerId, workerId, ...branchParams, now])[0];
}

/** `claimNextTask` with its audit and lease rows in the same statement (PostgreSQL only). */
export function claimNextTaskRecorded(
  tx: Tx,
  statement: ClaimNextStatement,
  now: number,
  workerId: string,
  record: ClaimRecord,
): ClaimedRow | undefined {
  const branchParams = statement.literals.map((literal) => literal ?? workerId);
  return tx.returning<ClaimedRow>(statement.recordedSql, [
    now,
    workerId,
    workerId,
    ...branchParams,
    now,
    ...recordParams(now, 'queued', 'claim', workerId, record),
  ])[0];
}

/** `claimTask` with its audit and lease rows in the same statement (PostgreSQL only). */
export function claimTaskRecorded(
  tx: Tx,
  taskId: string,
  status: TaskStatus,
  trigger: string,
  now: number,
  workerId: string,
  branch: string,
  record: ClaimRecord,
): ClaimedRow | undefined {
  return tx.returning<ClaimedRow>(claimTaskRecordedSql, [
    now,
    workerId,
    workerId,
    branch,
    taskId,
    status,
    ...recordParams(now, status, trigger, workerId, record),
  ])[0];
}

/** Claims one given task if it is still in `status` and runnable by hand (not blocked, not a chain parent). */
export function claimTask(
  tx: Tx,
  taskId: string,
  status: TaskStatus,
  now: number,
  workerId: string,
  branch: string,
): ClaimedRow | undefined {
  return tx.returning<ClaimedRow>(claimTaskSql, [now, workerId, workerId, branch, taskId, status])[0];
}

/** The earliest future `scheduled_for` among queued tasks. */
export function nextDueTime(reader: Reader, now: number): number | undefined {
  const row = reader.get<{ due: number | null }>(
    `SELECT MIN(scheduled_for) AS due FROM tasks WHERE status = 'queued' AND scheduled_for > ?`,
    [now],
  );
  return row?.due ?? undefined;
}
