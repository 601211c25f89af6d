import type { Reader, Tx } from '../ports';
import type { TaskRow } from '../rows';
import type { SessionRow } from './agentSessions';
import type { MessageRow } from './messages';
import type { TransitionRow } from './transitions';

/**
 * Retention (issue 13): what may leave the live database, how it leaves, and the rollups that keep
 * the metrics whole. Lists of ids travel as one JSON parameter (`json_each`), so every statement
 * here is a constant string.
 */

/** A worker transition with the time of the next one of the same worker: how long it lasted. */
export interface WorkerTransitionRow extends TransitionRow {
  next_ts: number;
}

export type RollupMetric =
  | 'transition_pair'
  | 'time_in_state'
  | 'finished'
  | 'usage_input'
  | 'usage_output'
  | 'usage_cache_read'
  | 'usage_cache_write'
  | 'usage_cost';

export interface RollupRow {
  metric: RollupMetric;
  entity: string;
  a: string;
  b: string;
  count: number;
  total: number;
  max: number;
}

/**
 * Done and cancelled tasks finished before `before`, oldest first, that no worker still holds.
 * (Failed tasks can be retried; they stay.) Along the finish-time index, named: the planner would
 * take the status index and sort every finished task.
 */
export function listFinishedTasksBefore(reader: Reader, before: number, limit: number): TaskRow[] {
  return reader.all<TaskRow>(
    `SELECT * FROM tasks INDEXED BY tasks_finished WHERE finished_at IS NOT NULL AND finished_at < ? AND status IN ('done', 'cancelled')
       AND id NOT IN (SELECT task_id FROM workers WHERE task_id IS NOT NULL)
     ORDER BY finished_at LIMIT ?`,
    [before, limit],
  );
}

/** Tasks that point at any of `ids` (as the task they wait for, or as their chain's parent). */
export function listReferrers(reader: Reader, ids: readonly string[]): Array<{ id: string; target: string }> {
  return reader.all<{ id: string; target: string }>(
    `SELECT id, blocked_by_task_id AS target FROM tasks WHERE blocked_by_task_id IN (SELECT value FROM json_each(?1))
     UNION ALL
     SELECT id, parent_task_id AS target FROM tasks WHERE parent_task_id IN (SELECT value FROM json_each(?1))`,
    [JSON.stringify(ids)],
  );
}

/** Every transition of these tasks, in seq order. */
export function listTransitionsOfTasks(reader: Reader, ids: readonly string[]): TransitionRow[] {
  return reader.all<TransitionRow>(
    `SELECT * FROM transitions WHERE entity_type = 'task' AND entity_id IN (SELECT value FROM json_each(?)) ORDER BY seq`,
    [JSON.stringify(ids)],
  );
}

/** The agent sessions of these tasks. */
export function listSessionsOfTasks(reader: Reader, ids: readonly string[]): SessionRow[] {
  return reader.all<SessionRow>(
    `SELECT * FROM agent_sessions WHERE task_id IN (SELECT value FROM json_each(?)) ORDER BY task_id, attempt`,
    [JSON.stringify(ids)],
  );
}

/**
 * Worker transitions before `before`, oldest first, each with the time of the worker's next one;
 * a worker's latest transition has none and stays, so its current state is always in the live log.
 * Walked along the time index (named: the planner would take the entity index and sort every
 * worker row), so a batch reads about as many rows as it returns; the successor is one step along
 * the entity index.
 */
export function listWorkerTransitionsBefore(reader: Reader, before: number, limit: number): WorkerTransitionRow[] {
  return reader.all<WorkerTransitionRow>(
    `SELECT * FROM (
       SELECT t.*, (SELECT n.ts_ms FROM transitions n WHERE n.entity_type = 'worker' AND n.entity_id = t.entity_id AND n.seq > t.seq
                    ORDER BY n.seq LIMIT 1) AS next_ts
       FROM transitions t INDEXED BY transitions_ts WHERE t.entity_type = 'worker' AND t.ts_ms < ? ORDER BY t.ts_ms, t.seq LIMIT ?) AS due
     WHERE next_ts IS NOT NULL`,
    [before, limit],
  );
}

/** The finish time of the oldest done or cancelled task, or the time of the oldest message, whichever is older. */
export function findOldestArchivable(reader: Reader): number | undefined {
  const row = reader.get<{ oldest: number | null }>(
    `SELECT MIN(oldest) AS oldest FROM (
       SELECT MIN(finished_at) AS oldest FROM tasks WHERE finished_at IS NOT NULL AND status IN ('done', 'cancelled')
       UNION ALL SELECT ts_ms FROM (SELECT ts_ms FROM messages ORDER BY seq LIMIT 1) AS first_message) AS candidates`,
  );
  return row?.oldest ?? undefined;
}

/** Messages published before `before`, oldest first, along the time index. */
export function listMessagesBefore(reader: Reader, before: number, limit: number): MessageRow[] {
  return reader.all<MessageRow>('SELECT * FROM messages WHERE ts_ms < ? ORDER BY ts_ms, seq LIMIT ?', [before, limit]);
}

/** Removes an archived task with its sessions and claim; only while it is still finished. */
export function deleteArchivedTask(tx: Tx, id: string): number {
  tx.run('DELETE FROM agent_sessions WHERE task_id = ?', [id]);
  tx.run('DELETE FROM task_claims WHERE task_id = ?', [id]);
  return tx.run(`DELETE FROM tasks WHERE id = ? AND status IN ('done', 'cancelled')`, [id]);
}

/** Whether transition `seq` is still in the live table (transitions never change; they only leave). */
export function hasTransition(reader: Reader, seq: number): boolean {
  return reader.get('SELECT 1 AS found FROM transitions WHERE seq = ?', [seq]) !== undefined;
}

/** Whether message `seq` is still in the live table (messages never change; they only leave). */
export function hasMessage(reader: Reader, seq: number): boolean {
  return reader.get('SELECT 1 AS found FROM messages WHERE seq = ?', [seq]) !== undefined;
}

export function deleteTransition(tx: Tx, seq: number): number {
  return tx.run('DELETE FROM transitions WHERE seq = ?', [seq]);
}

export function deleteMessage(tx: Tx, seq: number): number {
  return tx.run('DELETE FROM messages WHERE seq = ?', [seq]);
}

/** Free pages are given back once they are this many (1 MiB of 4 KiB pages)… */
const reclaimFromPages = 256;
/** …and at least this share of the file. */
const reclaimFromShare = 0.25;

/**
 * Gives the pages the deleted rows freed back, so the image (and every checkpoint) shrinks as
 * history leaves; the store opens in auto_vacuum=INCREMENTAL. Only once a good share of the file is
 * free: sql.js keeps the file in one array that a truncation copies whole and the next growth copies
 * again (tens of milliseconds at 16 MiB), and pages freed by one batch are soon reused by new work.
 * True when pages were given back.
 */
export function reclaimFreePages(tx: Tx): boolean {
  const free = Number(tx.get<{ freelist_count: number }>('PRAGMA freelist_count')?.freelist_count ?? 0);
  const pages = Number(tx.get<{ page_count: number }>('PRAGMA page_count')?.page_count ?? 0);
  if (free < reclaimFromPages || free < pages * reclaimFromShare) return false;
  tx.run('PRAGMA incremental_vacuum');
  return true;
}

/** Adds to a rollup: counts and totals add up, the maximum is kept. */
export function addRollup(tx: Tx, row: RollupRow): void {
  tx.run(
    `INSERT INTO archive_rollups (metric, entity, a, b, count, total, max) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(metric, entity, a, b) DO UPDATE SET count = archive_rollups.count + excluded.count,
         total = archive_rollups.total + excluded.total, max = MAX(archive_rollups.max, excluded.max)`,
    [row.metric, row.entity, row.a, row.b, row.count, row.total, row.max],
  );
}

export function listRollups(reader: Reader, metric: RollupMetric): RollupRow[] {
  return reader.all<RollupRow>('SELECT * FROM archive_rollups WHERE metric = ?', [metric]);
}

/** How many rows each live table holds (what retention keeps small). */
export function countLiveRows(reader: Reader): { tasks: number; transitions: number; messages: number } {
  const row = reader.get<{ tasks: number; transitions: number; messages: number }>(
    `SELECT (SELECT COUNT(*) FROM tasks) AS tasks, (SELECT COUNT(*) FROM transitions) AS transitions,
            (SELECT COUNT(*) FROM messages) AS messages`,
  );
  return row ?? { tasks: 0, transitions: 0, messages: 0 };
}
