import type { WorkerState } from '../../core/workerMachine';
import type { Reader, Tx } from '../ports';
import type { WorkerRow } from '../rows';
import { workerPhases } from '../../core/actions';
import { type ColumnValues, withSetClause } from './setClause';
import { stateIn, underWay } from './stateIn';

/** The `workers` table: one row per worker, its state guarded by every UPDATE that moves it. */

export function findWorker(reader: Reader, id: string): WorkerRow | undefined {
  return reader.get<WorkerRow>('SELECT * FROM workers WHERE id = ?', [id]);
}

/** Whether a worker of that id exists (reads the key only). */
export function workerExists(reader: Reader, id: string): boolean {
  return reader.get<{ id: string }>('SELECT id FROM workers WHERE id = ?', [id]) !== undefined;
}

/** The worker's state alone, e.g. to decide how durably a request must be written before running it. */
export function findWorkerState(reader: Reader, id: string): WorkerState | undefined {
  return reader.get<{ state: WorkerState }>('SELECT state FROM workers WHERE id = ?', [id])?.state;
}

/** The worker that holds a task, in whatever state. */
export function findWorkerHolding(reader: Reader, taskId: string): WorkerRow | undefined {
  return reader.get<WorkerRow>('SELECT * FROM workers WHERE task_id = ?', [taskId]);
}

/** The id of the worker that holds a task, in whatever state. */
export function findWorkerIdHolding(reader: Reader, taskId: string): string | undefined {
  return reader.get<{ id: string }>('SELECT id FROM workers WHERE task_id = ?', [taskId])?.id;
}

/** The worker that holds a task in one of `states` (the caller passes a constant list). */
export function findWorkerHoldingIn(reader: Reader, taskId: string, states: readonly WorkerState[]): WorkerRow | undefined {
  return reader.get<WorkerRow>(`SELECT * FROM workers WHERE task_id = ? AND ${stateIn(states)}`, [taskId, ...states]);
}

/** Every worker, by id. */
export function listWorkers(reader: Reader): WorkerRow[] {
  return reader.all<WorkerRow>('SELECT * FROM workers ORDER BY id');
}

/** These workers (at most `maxIdsPerRead`), by id; ids that match none are left out. */
export function listWorkersById(reader: Reader, ids: readonly string[]): WorkerRow[] {
  if (!ids.length) return [];
  return reader.all<WorkerRow>(`SELECT * FROM workers WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`, [...ids]);
}

/** Workers in one state, by id. */
export function listWorkersIn(reader: Reader, state: WorkerState): WorkerRow[] {
  return reader.all<WorkerRow>('SELECT * FROM workers WHERE state = ? ORDER BY id', [state]);
}

/** Workers in one state that run on `host` or on any machine (host NULL), by id: what an owner on `host` may launch. */
export function listWorkersInOnHost(reader: Reader, state: WorkerState, host: string): WorkerRow[] {
  return reader.all<WorkerRow>('SELECT * FROM workers WHERE state = ? AND (host = ? OR host IS NULL) ORDER BY id', [state, host]);
}

/** The workers of one host (not those of any host), by id. */
export function listWorkersOnHost(reader: Reader, host: string): WorkerRow[] {
  return reader.all<WorkerRow>('SELECT * FROM workers WHERE host = ? ORDER BY id', [host]);
}

const withAgentsSql = `SELECT * FROM workers WHERE ${stateIn(workerPhases.agentExpected)}`;

/** Workers whose agent should be running (after an owner restart those agents are gone). */
export function listWorkersWithAgents(reader: Reader): WorkerRow[] {
  return reader.all<WorkerRow>(withAgentsSql, [...workerPhases.agentExpected]);
}

/** Workers that take a place under the concurrency limit, on every machine. */
export function countBusyWorkers(reader: Reader): number {
  return reader.get<{ n: number }>(`SELECT COUNT(*) AS n FROM workers WHERE ${underWay.sql}`, [...underWay.params])?.n ?? 0;
}

/**
 * Busy workers whose agents run on `host`: its own workers, and workers of any host (NULL) that an
 * owner on `host` handed their task (their agent runs where that owner is). What one machine's
 * `concurrency` limits.
 */
export function countBusyWorkersOnHost(reader: Reader, host: string): number {
  return (
    reader.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM workers WHERE ${underWay.sql}
       AND (host = ? OR (host IS NULL AND owner_id IN (SELECT id FROM owners WHERE host = ?)))`,
      [...underWay.params, host, host],
    )?.n ?? 0
  );
}

/** A new IDLE worker, on `host` (null: any machine). */
export function insertWorker(tx: Tx, id: string, agent: string, maxAttempts: number | null, now: number, host: string | null = null): void {
  tx.run(`INSERT INTO workers (id, state, agent, max_attempts, state_changed_at, created_at, host) VALUES (?, 'IDLE', ?, ?, ?, ?, ?)`, [
    id,
    agent,
    maxAttempts,
    now,
    now,
    host,
  ]);
}

/**
 * Moves a worker from `from` to `to` (plus the columns of `set`) only if it is still in `from`.
 * Returns the rows changed: 1, or 0 when someone moved it first.
 */
export function updateWorkerState(tx: Tx, id: string, from: WorkerState, to: WorkerState, now: number, set?: ColumnValues): number {
  const extra = withSetClause(
    'UPDATE workers SET state = ?, state_changed_at = ?, version = version + 1{set} WHERE id = ? AND state = ?',
    set,
  );
  return tx.run(extra.sql, [to, now, ...extra.params, id, from]);
}

/** As `updateWorkerState`, answering the row as it now is (nothing when the guard did not hold): no read after the move. */
export function updateWorkerStateReturning(
  tx: Tx,
  id: string,
  from: WorkerState,
  to: WorkerState,
  now: number,
  set?: ColumnValues,
): WorkerRow | undefined {
  const extra = withSetClause(
    'UPDATE workers SET state = ?, state_changed_at = ?, version = version + 1{set} WHERE id = ? AND state = ? RETURNING *',
    set,
  );
  return tx.returning<WorkerRow>(extra.sql, [to, now, ...extra.params, id, from])[0];
}

/**
 * `foreman claim`'s move of its worker IDLE→ASSIGNED onto the task it just took, guarded by IDLE:
 * the claim reads the worker no more before it (issue 34). The lease holder is set as
 * `StateService.leaseHolderFor` sets it: for a worker on `ownerHost` or on no host. False when the
 * worker is not IDLE (or does not exist): the caller refuses, which rolls the task's claim back.
 */
export function assignIdleWorker(
  tx: Tx,
  id: string,
  now: number,
  task: { readonly id: string; readonly branch: string; readonly attempt: number },
  ownerHost: string | null,
  leaseHolder: string | null,
): boolean {
  return (
    tx.run(
      `UPDATE workers SET state = 'ASSIGNED', state_changed_at = ?, version = version + 1, task_id = ?, branch = ?, attempt = ?,
         last_error = NULL, note = NULL, summary = NULL, owner_id = CASE WHEN host IS NULL OR host = ? THEN ? END
       WHERE id = ? AND state = 'IDLE'`,
      [now, task.id, task.branch, task.attempt, ownerHost, leaseHolder, id],
    ) === 1
  );
}

/** Records why a worker is about to fail, without a transition of its own. */
export function setWorkerLastError(tx: Tx, id: string, error: string): void {
  tx.run('UPDATE workers SET last_error = ? WHERE id = ?', [error, id]);
}
