/**
 * The benches' shared workload: tasks (and months of history) seeded the same way everywhere, and
 * the minimal claim (the engine's picker under one UPDATE … RETURNING, plus its transition) that the
 * store, long-run and client benches time against better-sqlite3. A module of its own, with no
 * entry point, so that a bench bundled with esbuild (engineClaim) does not start another's.
 */
import { ok, refused } from '../../src/core/result';
import type { Result } from '../../src/core/result';
import type { Tx } from '../../src/engine/ports';
import { nextRunnableIdSql } from '../../src/engine/queries/taskQueue';

// The engine's picker (its sub-select, taskQueue.ts) under a minimal claim.
export const claimSql = `UPDATE tasks SET status = 'running', attempt = attempt + 1, started_at = ?, worker_id = ?, version = version + 1
WHERE id = (${nextRunnableIdSql.sqlite})
  AND status = 'queued'
RETURNING id, attempt`;
export const transitionSql = `INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, actor, attempt) VALUES (?, 'task', ?, 'queued', 'running', 'claim', ?, ?)`;

const workerId = 'worker-1';
const rowsPerInsert = 500;
type Value = string | number | null;

/** Seeds `count` tasks (one in four already done) through `insert`, 500 rows per statement. */
export function seed(count: number, insert: (sql: string, params: Value[]) => void): void {
  const base = 1_700_000_000_000;
  for (let start = 0; start < count; start += rowsPerInsert) {
    const params: Value[] = [];
    const rows: string[] = [];
    for (let i = start; i < Math.min(count, start + rowsPerInsert); i++) {
      rows.push('(?, ?, ?, ?, ?, ?)');
      params.push(
        `task-${String(i).padStart(7, '0')}`,
        `Task ${i}`,
        `Do step ${i} of the plan.`,
        i % 4 === 3 ? 'done' : 'queued',
        i,
        base + i,
      );
    }
    insert(`INSERT INTO tasks (id, title, prompt, status, sort_order, created_at) VALUES ${rows.join(', ')}`, params);
  }
}

/** The story of a finished task, four transitions long. */
const finishedStory = [
  ['queued', 'running', 'claim'],
  ['running', 'review', 'submit'],
  ['review', 'merging', 'approve'],
  ['merging', 'done', 'merged'],
] as const;

/**
 * Seeds `count` history rows (transitions) for the done tasks `seed` made, four per task and
 * round after round over them, through `insert`, 500 rows per statement: months of a crew's history.
 */
export function seedHistory(count: number, tasks: number, insert: (sql: string, params: Value[]) => void): void {
  const doneTasks = Math.floor(tasks / 4);
  if (doneTasks === 0) throw new Error('history needs at least 4 tasks (one in four is done)');
  const base = 1_600_000_000_000;
  for (let start = 0; start < count; start += rowsPerInsert) {
    const params: Value[] = [];
    const rows: string[] = [];
    for (let i = start; i < Math.min(count, start + rowsPerInsert); i++) {
      const [from, to, trigger] = finishedStory[i % finishedStory.length] ?? finishedStory[0];
      const task = Math.floor(i / finishedStory.length) % doneTasks;
      rows.push(`(?, 'task', ?, ?, ?, ?, 'bench', 1)`);
      params.push(base + i, `task-${String(task * 4 + 3).padStart(7, '0')}`, from, to, trigger);
    }
    insert(
      `INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, actor, attempt) VALUES ${rows.join(', ')}`,
      params,
    );
  }
}

/** The minimal claim as one store write: the task's UPDATE … RETURNING and its transition. */
export function claimIn(tx: Tx): Result<{ id: string; attempt: number }> {
  const now = Date.now();
  const [row] = tx.returning<{ id: string; attempt: number }>(claimSql, [now, workerId, now]);
  if (!row) return refused('empty', 'No queued task left.');
  tx.run(transitionSql, [now, row.id, workerId, row.attempt]);
  return ok(row);
}
