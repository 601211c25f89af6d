import { WorkerState } from '../../core/workerMachine';
import type { Reader, Tx } from '../ports';
import { stateIn } from './stateIn';

/**
 * The overlap tables (migration 13, docs/overlaps.md): `task_touched` (the files each running task
 * touched), `overlap_pairs` (what a person chose for a pair) and `task_paths` (the files a task is
 * expected to touch). A touched row counts only while the worker it names holds its task in one of
 * `overlapHolderStates`: rows a crash left behind are never reported, and an owner start clears them.
 */

/** Worker states in which the worker's task counts for overlaps: its agent works, or its work waits for review. */
export const overlapHolderStates: readonly WorkerState[] = [
  WorkerState.Working,
  WorkerState.InReview,
  WorkerState.Approved,
  WorkerState.Stale,
  WorkerState.Paused,
];
const held = `EXISTS (SELECT 1 FROM workers w WHERE w.id = o.worker_id AND w.task_id = o.task_id AND w.${stateIn(overlapHolderStates)})`;

export interface TouchedRow {
  task_id: string;
  path: string;
  worker_id: string;
  /** JSON `[[start, end], …]`; null when only the file's name is known. */
  ranges: string | null;
  title: string;
}

export type OverlapChoice = 'ignored' | 'rebase-when-merged';

export interface OverlapChoiceRow {
  task_id: string;
  other_id: string;
  choice: OverlapChoice;
}

/** Every held task's rows of the files another held task touched too: all that overlaps are made of. */
export function listSharedTouched(reader: Reader): TouchedRow[] {
  return reader.all<TouchedRow>(
    `SELECT o.task_id, o.path, o.worker_id, o.ranges, t.title FROM task_touched o JOIN tasks t ON t.id = o.task_id
      WHERE ${held} AND EXISTS (SELECT 1 FROM task_touched s WHERE s.path = o.path AND s.task_id <> o.task_id)
      ORDER BY o.task_id, o.path`,
    [...overlapHolderStates],
  );
}

/** One task's rows, all of them, and the rows of the held tasks that touched one of its files. */
export function listTouchedAround(reader: Reader, taskId: string): TouchedRow[] {
  return reader.all<TouchedRow>(
    `SELECT o.task_id, o.path, o.worker_id, o.ranges, t.title FROM task_touched o JOIN tasks t ON t.id = o.task_id WHERE o.task_id = ?
     UNION ALL
     SELECT o.task_id, o.path, o.worker_id, o.ranges, t.title FROM task_touched m
       JOIN task_touched o ON o.path = m.path AND o.task_id <> m.task_id JOIN tasks t ON t.id = o.task_id
      WHERE m.task_id = ? AND ${held}`,
    [taskId, taskId, ...overlapHolderStates],
  );
}

/** The rows of the held tasks other than `taskId` that touched this file. */
export function listTouchedOn(reader: Reader, path: string, taskId: string): TouchedRow[] {
  return reader.all<TouchedRow>(
    `SELECT o.task_id, o.path, o.worker_id, o.ranges, t.title FROM task_touched o JOIN tasks t ON t.id = o.task_id
      WHERE o.path = ? AND o.task_id <> ? AND ${held}`,
    [path, taskId, ...overlapHolderStates],
  );
}

/** The other tasks (and their workers) that touched one of this task's files. */
export function listSharers(reader: Reader, taskId: string): { task_id: string; worker_id: string }[] {
  return reader.all(
    `SELECT DISTINCT o.task_id, o.worker_id FROM task_touched m JOIN task_touched o ON o.path = m.path AND o.task_id <> m.task_id
      WHERE m.task_id = ?`,
    [taskId],
  );
}

/** The tasks whose rows name this worker. */
export function listTouchedTasksOfWorker(reader: Reader, workerId: string): string[] {
  return reader
    .all<{ task_id: string }>('SELECT DISTINCT task_id FROM task_touched WHERE worker_id = ?', [workerId])
    .map((row) => row.task_id);
}

/** Who holds the worker's task while it counts for overlaps; undefined otherwise. */
export function findOverlapSubject(reader: Reader, workerId: string): { taskId: string; workerId: string; title: string } | undefined {
  return reader.get(
    `SELECT t.id AS "taskId", w.id AS "workerId", t.title FROM workers w JOIN tasks t ON t.id = w.task_id WHERE w.id = ? AND w.${stateIn(overlapHolderStates)}`,
    [workerId, ...overlapHolderStates],
  );
}

/** Adds a file to what the task touched: 1, or 0 when it was known. */
export function insertTouchedIfNew(tx: Tx, taskId: string, path: string, workerId: string): number {
  return tx.run(
    'INSERT INTO task_touched (task_id, path, worker_id, ranges) VALUES (?, ?, ?, NULL) ON CONFLICT (task_id, path) DO NOTHING',
    [taskId, path, workerId],
  );
}

export function insertTouched(tx: Tx, taskId: string, path: string, workerId: string, ranges: string | null): void {
  tx.run('INSERT INTO task_touched (task_id, path, worker_id, ranges) VALUES (?, ?, ?, ?)', [taskId, path, workerId, ranges]);
}

export function updateTouchedRanges(tx: Tx, taskId: string, path: string, ranges: string | null): void {
  tx.run('UPDATE task_touched SET ranges = ? WHERE task_id = ? AND path = ?', [ranges, taskId, path]);
}

export function deleteTouched(tx: Tx, taskId: string, path: string): void {
  tx.run('DELETE FROM task_touched WHERE task_id = ? AND path = ?', [taskId, path]);
}

export function deleteTouchedOfTask(tx: Tx, taskId: string): number {
  return tx.run('DELETE FROM task_touched WHERE task_id = ?', [taskId]);
}

/** The worker let go of its task: what it touched no longer counts. */
export function deleteTouchedOfWorker(tx: Tx, workerId: string): number {
  return tx.run('DELETE FROM task_touched WHERE worker_id = ?', [workerId]);
}

/** Rows no holding worker stands behind (a crash between a task's end and their removal). */
export function deleteUnheldTouched(tx: Tx): number {
  return tx.run(
    `DELETE FROM task_touched WHERE NOT EXISTS (SELECT 1 FROM workers w WHERE w.id = task_touched.worker_id
       AND w.task_id = task_touched.task_id AND w.${stateIn(overlapHolderStates)})`,
    [...overlapHolderStates],
  );
}

/** A chain step is Done: the files it touched are what the chain's next steps are expected to touch. */
export function copyTouchedToParent(tx: Tx, taskId: string): void {
  tx.run(
    `INSERT INTO task_paths (task_id, path)
     SELECT t.parent_task_id, o.path FROM task_touched o JOIN tasks t ON t.id = o.task_id WHERE o.task_id = ? AND t.parent_task_id IS NOT NULL
     ON CONFLICT (task_id, path) DO NOTHING`,
    [taskId],
  );
}

export function listOverlapChoices(reader: Reader): OverlapChoiceRow[] {
  return reader.all<OverlapChoiceRow>('SELECT task_id, other_id, choice FROM overlap_pairs ORDER BY task_id, other_id');
}

export function listOverlapChoicesOf(reader: Reader, taskId: string): OverlapChoiceRow[] {
  return reader.all<OverlapChoiceRow>('SELECT task_id, other_id, choice FROM overlap_pairs WHERE task_id = ?', [taskId]);
}

export function insertOverlapChoice(tx: Tx, taskId: string, otherId: string, choice: OverlapChoice, now: number): void {
  tx.run(
    `INSERT INTO overlap_pairs (task_id, other_id, choice, chosen_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (task_id, other_id, choice) DO NOTHING`,
    [taskId, otherId, choice, now],
  );
}

/** Takes one plan (1), or finds it taken already (0): whoever deletes it carries it out. */
export function deleteOverlapChoice(tx: Tx, taskId: string, otherId: string, choice: OverlapChoice): number {
  return tx.run('DELETE FROM overlap_pairs WHERE task_id = ? AND other_id = ? AND choice = ?', [taskId, otherId, choice]);
}

/** A task ended: its own choices go, and the ignored pairs naming it (plans waiting for it stay until it is Done). */
export function deleteOverlapChoicesOf(tx: Tx, taskId: string): void {
  tx.run(`DELETE FROM overlap_pairs WHERE task_id = ? OR (other_id = ? AND choice = 'ignored')`, [taskId, taskId]);
}

/** `rebase-when-merged` plans whose other task is Done: due now. */
export function listDuePlans(reader: Reader): OverlapChoiceRow[] {
  return reader.all<OverlapChoiceRow>(
    `SELECT p.task_id, p.other_id, p.choice FROM overlap_pairs p JOIN tasks o ON o.id = p.other_id
      WHERE p.choice = 'rebase-when-merged' AND o.status = 'done' ORDER BY p.chosen_at, p.task_id`,
  );
}

/** Choices and hints of tasks that are gone (archived) or over (done, cancelled). */
export function deleteStaleOverlapChoices(tx: Tx): void {
  tx.run(
    `DELETE FROM overlap_pairs WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = overlap_pairs.task_id AND t.status NOT IN ('done', 'cancelled'))`,
  );
  tx.run(
    `DELETE FROM task_paths WHERE NOT EXISTS (SELECT 1 FROM tasks t WHERE t.id = task_paths.task_id AND t.status NOT IN ('done', 'cancelled'))`,
  );
}

export function insertTaskPath(tx: Tx, taskId: string, path: string): void {
  tx.run('INSERT INTO task_paths (task_id, path) VALUES (?, ?) ON CONFLICT (task_id, path) DO NOTHING', [taskId, path]);
}

export function deleteTaskPathsOf(tx: Tx, taskId: string): void {
  tx.run('DELETE FROM task_paths WHERE task_id = ?', [taskId]);
}

/** Whether any task is expected to touch anything: without, the dispatcher keeps to queue order. */
export function hasTaskPaths(reader: Reader): boolean {
  return reader.get<{ one: number }>('SELECT 1 AS one FROM task_paths LIMIT 1') !== undefined;
}

/**
 * Whether a file expected of the task (its own hint, or its chain's: `parentId`) was touched by a
 * held task other than itself.
 */
export function expectedFilesTouched(reader: Reader, taskId: string, parentId: string | null): boolean {
  return (
    reader.get<{ one: number }>(
      `SELECT 1 AS one FROM task_paths p JOIN task_touched o ON o.path = p.path AND o.task_id <> ?
        WHERE (p.task_id = ? OR p.task_id = ?) AND ${held} LIMIT 1`,
      [taskId, taskId, parentId, ...overlapHolderStates],
    ) !== undefined
  );
}
