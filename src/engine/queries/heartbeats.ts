import type { NativeSql, Reader, Tx } from '../ports';
import { appendRow } from './appendRow';
import type { WorkerRow } from '../rows';

/**
 * The `heartbeats` table: one row per worker with its latest sign of life, what it said it was
 * doing, and whether it waits for a person (and the person's answer).
 */

/** What status views read of a heartbeat. */
export interface BeatRow {
  agent_id: string;
  current_task: string | null;
  progress: number | null;
  attempt: number | null;
  activity: string | null;
  activity_at: number | null;
  needs_input: string | null;
  needs_input_at: number | null;
}

/** A worker with its latest heartbeat: everything its liveness verdict depends on. */
export interface WorkerSigns extends WorkerRow {
  heartbeat_ms: number | null;
  heartbeat_attempt: number | null;
  needs_input: string | null;
  needs_input_at: number | null;
}

const workerSignsSql = `SELECT workers.*, heartbeats.ts_ms AS heartbeat_ms, heartbeats.attempt AS heartbeat_attempt, heartbeats.needs_input,
       heartbeats.needs_input_at FROM workers LEFT JOIN heartbeats ON heartbeats.agent_id = workers.id`;
// Constant strings, so the store's statement cache keeps one prepared statement each.
const everyWorkerSignsSql = `${workerSignsSql} ORDER BY workers.id`;
// One worker by subqueries, not the join: in sql.js the join's step took ~40 µs where these take ~4,
// and the waker reads it after every commit (20% of an owner's CPU per heartbeat with 8 clients).
const heartbeatOf = (column: string): string => `(SELECT ${column} FROM heartbeats WHERE agent_id = workers.id)`;
const oneWorkerSignsSql = `SELECT workers.*, ${heartbeatOf('ts_ms')} AS heartbeat_ms, ${heartbeatOf('attempt')} AS heartbeat_attempt,
       ${heartbeatOf('needs_input')} AS needs_input, ${heartbeatOf('needs_input_at')} AS needs_input_at FROM workers WHERE workers.id = ?`;

/** The heartbeat upsert, comparing with `same` (equal, NULLs included). */
const upsert = (same: string): string =>
  `INSERT INTO heartbeats (agent_id, ts_ms, status, current_task, attempt, progress, source, activity, activity_at, needs_input, needs_input_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(agent_id) DO UPDATE SET ts_ms = excluded.ts_ms, status = excluded.status, current_task = excluded.current_task,
         attempt = excluded.attempt,
         progress = CASE WHEN heartbeats.current_task ${same} excluded.current_task AND heartbeats.attempt ${same} excluded.attempt
                         THEN COALESCE(excluded.progress, heartbeats.progress) ELSE excluded.progress END, source = excluded.source,
         activity = COALESCE(excluded.activity, heartbeats.activity), activity_at = COALESCE(excluded.activity_at, heartbeats.activity_at),
         needs_input = CASE WHEN excluded.needs_input IS NOT NULL THEN excluded.needs_input WHEN ? THEN NULL ELSE heartbeats.needs_input END,
         needs_input_at = CASE WHEN excluded.needs_input IS NOT NULL THEN excluded.needs_input_at WHEN ? THEN NULL ELSE heartbeats.needs_input_at END,
         input_answer = CASE WHEN excluded.needs_input IS NOT NULL THEN NULL ELSE heartbeats.input_answer END`;
// Equal, NULLs included: SQLite's `IS`, PostgreSQL's `IS NOT DISTINCT FROM`.
const upsertSql: NativeSql = { sqlite: upsert('IS'), postgres: upsert('IS NOT DISTINCT FROM') };

/**
 * Records a heartbeat. Progress carries over while the task and attempt stay the same; activity
 * and a wait carry over when the beat says nothing of them; `endsWait` clears a wait the beat does
 * not repeat; a new wait drops an old answer. Positional because it runs on every heartbeat.
 */
export function upsertHeartbeat(
  tx: Tx,
  workerId: string,
  now: number,
  status: string,
  currentTask: string | null,
  attempt: number | null,
  progress: number | null,
  source: string,
  activity: string | null,
  needsInput: string | null,
  endsWait: boolean,
): void {
  const ends = endsWait ? 1 : 0;
  appendRow(tx, upsertSql, [
    workerId,
    now,
    status,
    currentTask,
    attempt,
    progress,
    source,
    activity,
    activity === null ? null : now,
    needsInput,
    needsInput === null ? null : now,
    ends,
    ends,
  ]);
}

/** The person's answer kept for the worker's agent, if any, with their note. */
export function findInputAnswer(reader: Reader, workerId: string): { answer: string | null; note: string | null } | undefined {
  const row = reader.get<{ input_answer: string | null; input_note: string | null }>(
    'SELECT input_answer, input_note FROM heartbeats WHERE agent_id = ?',
    [workerId],
  );
  return row ? { answer: row.input_answer, note: row.input_note } : undefined;
}

export function clearInputAnswer(tx: Tx, workerId: string): void {
  tx.run('UPDATE heartbeats SET input_answer = NULL, input_note = NULL WHERE agent_id = ?', [workerId]);
}

/** What the worker said it waits for, and in which attempt. */
export function findInputWait(reader: Reader, workerId: string): { needs_input: string | null; attempt: number | null } | undefined {
  return reader.get<{ needs_input: string | null; attempt: number | null }>(
    'SELECT needs_input, attempt FROM heartbeats WHERE agent_id = ?',
    [workerId],
  );
}

/** Ends the worker's wait and keeps the person's answer (and note) for its agent's next heartbeat. */
export function answerInputWait(tx: Tx, workerId: string, decision: 'allow' | 'deny', note: string | null): void {
  tx.run('UPDATE heartbeats SET input_answer = ?, input_note = ?, needs_input = NULL, needs_input_at = NULL WHERE agent_id = ?', [
    decision,
    note,
    workerId,
  ]);
}

/** Every worker's latest heartbeat, for status views. */
export function listBeats(reader: Reader): BeatRow[] {
  return reader.all<BeatRow>(
    'SELECT agent_id, current_task, progress, attempt, activity, activity_at, needs_input, needs_input_at FROM heartbeats',
  );
}

/** These workers' latest heartbeats (at most `maxIdsPerRead` ids). */
export function listBeatsOf(reader: Reader, workerIds: readonly string[]): BeatRow[] {
  if (!workerIds.length) return [];
  return reader.all<BeatRow>(
    `SELECT agent_id, current_task, progress, attempt, activity, activity_at, needs_input, needs_input_at FROM heartbeats
      WHERE agent_id IN (${workerIds.map(() => '?').join(', ')})`,
    [...workerIds],
  );
}

/** Every worker with its latest heartbeat, by id. */
export function listWorkerSigns(reader: Reader): WorkerSigns[] {
  return reader.all<WorkerSigns>(everyWorkerSignsSql);
}

/** One worker with its latest heartbeat (an indexed read: the waker asks after each commit). */
export function findWorkerSigns(reader: Reader, workerId: string): WorkerSigns | undefined {
  return reader.get<WorkerSigns>(oneWorkerSignsSql, [workerId]);
}

/** What a view shows of a heartbeat changes when any of these does: its time, a wait, an answer. */
const beatSignsSql = `SELECT heartbeats.agent_id, heartbeats.ts_ms, heartbeats.needs_input_at, heartbeats.input_answer FROM heartbeats
       JOIN workers ON workers.id = heartbeats.agent_id WHERE workers.host IS NULL OR workers.host <> ?`;

/**
 * Each heartbeat of a worker not on `host`, as one comparable text: a view of another owner's
 * workers reads this on a timer, since heartbeats are not announced (issue 29).
 */
export function listBeatSignsOffHost(reader: Reader, host: string): Map<string, string> {
  const rows = reader.all<{ agent_id: string; ts_ms: number; needs_input_at: number | null; input_answer: string | null }>(beatSignsSql, [
    host,
  ]);
  return new Map(rows.map((row) => [row.agent_id, `${row.ts_ms}:${row.needs_input_at ?? ''}:${row.input_answer ?? ''}`]));
}
