/**
 * Months of finished work, written the way the engine leaves it: each finished task with its three
 * task transitions, four worker transitions and two state-change messages — the rows retention has
 * to move. Written through the store's Tx (journalled like any write), many rows per statement.
 */
import type { SqlValue, Tx } from '../../src/engine/ports';

/** Tasks per INSERT: well under SQLite's limit on bound parameters (7 transitions × 6 each). */
const tasksPerStatement = 200;
/** History rows each finished task brings: 7 transitions and 2 messages. */
export const historyRowsPerTask = 9;

function insertRows(tx: Tx, head: string, rowSql: string, rows: readonly SqlValue[][]): void {
  if (rows.length === 0) return;
  tx.run(`${head} VALUES ${rows.map(() => rowSql).join(', ')}`, rows.flat());
}

/**
 * Finished tasks `from`..`to` (exclusive), the n-th finishing at `start + n * 20 ms`, with their
 * history: `old-<n>`, done and merged by one of eight workers.
 */
export function insertFinishedTasks(tx: Tx, from: number, to: number, start: number): void {
  for (let first = from; first < to; first += tasksPerStatement) {
    const last = Math.min(to, first + tasksPerStatement);
    const tasks: SqlValue[][] = [];
    const transitions: SqlValue[][] = [];
    const messages: SqlValue[][] = [];
    for (let n = first; n < last; n++) {
      const at = start + n * 20;
      const id = `old-${n}`;
      const worker = `w${n % 8}`;
      tasks.push([id, `Finished task ${n}`, `Do step ${n} of the plan`, n, at, at + 5, at + 15, worker]);
      transitions.push(
        ['task', id, 'idle', 'queued', 'enqueue', at],
        ['task', id, 'queued', 'running', 'claim', at + 5],
        ['worker', worker, 'IDLE', 'ASSIGNED', 'assign', at + 5],
        ['worker', worker, 'ASSIGNED', 'WORKING', 'start', at + 6],
        ['worker', worker, 'WORKING', 'IN_REVIEW', 'submit', at + 10],
        ['worker', worker, 'IN_REVIEW', 'IDLE', 'merge', at + 15],
        ['task', id, 'running', 'done', 'complete', at + 15],
      );
      for (const kind of ['assigned', 'merged']) messages.push([`${id}-${kind}`, at + 15, JSON.stringify({ task: id, kind })]);
    }
    insertRows(
      tx,
      'INSERT INTO tasks (id, title, prompt, status, sort_order, created_at, started_at, finished_at, attempt, last_worker_id, result)',
      "(?, ?, ?, 'done', ?, ?, ?, ?, 1, ?, 'merged')",
      tasks,
    );
    insertRows(
      tx,
      'INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, actor, attempt)',
      "(?, ?, ?, ?, ?, ?, 'bench', 1)",
      transitions.map(([entity, entityId, fromState, toState, trigger, ts]) => [ts!, entity!, entityId!, fromState!, toState!, trigger!]),
    );
    insertRows(
      tx,
      'INSERT INTO messages (id, ts_ms, from_agent, to_agent, type, payload)',
      "(?, ?, 'foreman', NULL, 'state_change', ?)",
      messages,
    );
  }
}

/** Queued tasks `live-<n>` for n in `from`..`to` (exclusive): work in hand, created at `at`. */
export function insertQueuedTasks(tx: Tx, from: number, to: number, at: number): void {
  for (let first = from; first < to; first += tasksPerStatement) {
    const rows: SqlValue[][] = [];
    for (let n = first; n < Math.min(to, first + tasksPerStatement); n++)
      rows.push([`live-${n}`, `Work in hand ${n}`, 1_000_000_000 + n, at]);
    insertRows(tx, 'INSERT INTO tasks (id, title, prompt, status, sort_order, created_at)', "(?, ?, '', 'queued', ?, ?)", rows);
  }
}
