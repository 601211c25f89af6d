import type { NativeSql, Reader, Tx } from '../ports';
import type { TaskRow } from '../rows';
import type { SessionRow } from './agentSessions';
import type { MessageRow } from './messages';
import type { TransitionRow } from './transitions';

/**
 * Retention (issue 13): what may leave the live database, how it leaves, and the rollups that keep
 * the metrics whole. Lists of ids travel as one JSON parameter (SQLite's `json_each`, PostgreSQL's
 * `json_array_elements_text`), so every statement here is a constant.
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
const finishedTasksBefore = (index: string): string =>
  `SELECT * FROM tasks${index} WHERE finished_at IS NOT NULL AND finished_at < ? AND status IN ('done', 'cancelled')
       AND id NOT IN (SELECT task_id FROM workers WHERE task_id IS NOT NULL)
     ORDER BY finished_at LIMIT ?`;
// `INDEXED BY` is SQLite's planner hint; PostgreSQL's planner picks the index from its statistics.
const finishedTasksBeforeSql: NativeSql = {
  sqlite: finishedTasksBefore(' INDEXED BY tasks_finished'),
  postgres: finishedTasksBefore(''),
};

export function listFinishedTasksBefore(reader: Reader, before: number, limit: number): TaskRow[] {
  return reader.all<TaskRow>(finishedTasksBeforeSql, [before, limit]);
}

/** `SELECT value FROM` this: the ids in the JSON list parameter `?N`. */
const idsIn = (parameter: string): NativeSql => ({
  sqlite: `json_each(${parameter})`,
  postgres: `json_array_elements_text(${parameter}::json)`,
});

/** A statement with the JSON list of ids `?1` in it, in each backend's spelling. */
function withIds(statement: (ids: string) => string): NativeSql {
  const ids = idsIn('?1');
  return { sqlite: statement(ids.sqlite ?? ''), postgres: statement(ids.postgres ?? '') };
}

const referrersSql = withIds(
  (ids) => `SELECT id, blocked_by_task_id AS target FROM tasks WHERE blocked_by_task_id IN (SELECT value FROM ${ids})
     UNION ALL
     SELECT id, parent_task_id AS target FROM tasks WHERE parent_task_id IN (SELECT value FROM ${ids})`,
);
const transitionsOfTasksSql = withIds(
  (ids) => `SELECT * FROM transitions WHERE entity_type = 'task' AND entity_id IN (SELECT value FROM ${ids}) ORDER BY seq`,
);
const sessionsOfTasksSql = withIds(
  (ids) => `SELECT * FROM agent_sessions WHERE task_id IN (SELECT value FROM ${ids}) ORDER BY task_id, attempt`,
);

/** Tasks that point at any of `ids` (as the task they wait for, or as their chain's parent). */
export function listReferrers(reader: Reader, ids: readonly string[]): Array<{ id: string; target: string }> {
  return reader.all<{ id: string; target: string }>(referrersSql, [JSON.stringify(ids)]);
}

/** Every transition of these tasks, in seq order. */
export function listTransitionsOfTasks(reader: Reader, ids: readonly string[]): TransitionRow[] {
  return reader.all<TransitionRow>(transitionsOfTasksSql, [JSON.stringify(ids)]);
}

/** The agent sessions of these tasks. */
export function listSessionsOfTasks(reader: Reader, ids: readonly string[]): SessionRow[] {
  return reader.all<SessionRow>(sessionsOfTasksSql, [JSON.stringify(ids)]);
}

/**
 * Worker transitions before `before`, oldest first, each with the time of the worker's next one;
 * a worker's latest transition has none and stays, so its current state is always in the live log.
 * Walked along the time index (named: the planner would take the entity index and sort every
 * worker row), so a batch reads about as many rows as it returns; the successor is one step along
 * the entity index.
 */
const workerTransitionsBefore = (index: string): string => `SELECT * FROM (
       SELECT t.*, (SELECT n.ts_ms FROM transitions n WHERE n.entity_type = 'worker' AND n.entity_id = t.entity_id AND n.seq > t.seq
                    ORDER BY n.seq LIMIT 1) AS next_ts
       FROM transitions t${index} WHERE t.entity_type = 'worker' AND t.ts_ms < ? ORDER BY t.ts_ms, t.seq LIMIT ?) AS due
     WHERE next_ts IS NOT NULL`;
const workerTransitionsBeforeSql: NativeSql = {
  sqlite: workerTransitionsBefore(' INDEXED BY transitions_ts'),
  postgres: workerTransitionsBefore(''),
};

export function listWorkerTransitionsBefore(reader: Reader, before: number, limit: number): WorkerTransitionRow[] {
  return reader.all<WorkerTransitionRow>(workerTransitionsBeforeSql, [before, limit]);
}

/**
 * The oldest done or cancelled task's finish time, walked along the finish index (named: SQLite took
 * the status index and read every done task, ~120 ms per call at 100k tasks and seconds at 1M, on
 * the owner's thread at each archive step; issue 34), or the oldest message's time, whichever is older.
 */
const oldestArchivable = (index: string): string => `SELECT MIN(oldest) AS oldest FROM (
       SELECT * FROM (SELECT finished_at AS oldest FROM tasks${index} WHERE finished_at IS NOT NULL AND status IN ('done', 'cancelled')
                      ORDER BY finished_at LIMIT 1) AS first_finished
       UNION ALL SELECT ts_ms FROM (SELECT ts_ms FROM messages ORDER BY seq LIMIT 1) AS first_message) AS candidates`;
const oldestArchivableSql: NativeSql = { sqlite: oldestArchivable(' INDEXED BY tasks_finished'), postgres: oldestArchivable('') };

export function findOldestArchivable(reader: Reader): number | undefined {
  const row = reader.get<{ oldest: number | null }>(oldestArchivableSql);
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
  // PostgreSQL has no file of Foreman's: its autovacuum reclaims the space (Tx.fileSpace).
  if (!tx.fileSpace) return false;
  const { free, total } = tx.fileSpace.pages();
  if (free < reclaimFromPages || free < total * reclaimFromShare) return false;
  tx.fileSpace.reclaim();
  return true;
}

/** Adds to a rollup: counts and totals add up, the maximum is kept. */
const rollupUpsert = (greater: string): string =>
  `INSERT INTO archive_rollups (metric, entity, a, b, count, total, max) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(metric, entity, a, b) DO UPDATE SET count = archive_rollups.count + excluded.count,
         total = archive_rollups.total + excluded.total, max = ${greater}(archive_rollups.max, excluded.max)`;
// SQLite's two-argument MAX is PostgreSQL's GREATEST.
const addRollupSql: NativeSql = { sqlite: rollupUpsert('MAX'), postgres: rollupUpsert('GREATEST') };

export function addRollup(tx: Tx, row: RollupRow): void {
  tx.run(addRollupSql, [row.metric, row.entity, row.a, row.b, row.count, row.total, row.max]);
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
