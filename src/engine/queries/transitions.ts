import type { Reader, Tx } from '../ports';
import { appendRow } from './appendRow';

/** The `transitions` table: the audit log of every applied state change, in `seq` order. */

/** A transition as stored. */
export interface TransitionRow {
  seq: number;
  ts_ms: number;
  entity_type: 'worker' | 'task';
  entity_id: string;
  from_state: string;
  to_state: string;
  trigger: string;
  reason: string | null;
  actor: string;
  attempt: number | null;
  request_id: string | null;
  /** JSON text. */
  metadata: string | null;
}

/**
 * Appends one audit row. Positional, not an object, because every state change writes one (the
 * claim and heartbeat paths included) and the arguments go straight into the parameter list.
 */
export function insertTransition(
  tx: Tx,
  tsMs: number,
  entity: 'worker' | 'task',
  entityId: string,
  from: string,
  to: string,
  trigger: string,
  reason: string | null,
  actor: string,
  attempt: number | null,
  requestId: string | null,
  metadata: string | null,
): void {
  appendRow(
    tx,
    `INSERT INTO transitions (ts_ms, entity_type, entity_id, from_state, to_state, trigger, reason, actor, attempt, request_id, metadata)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [tsMs, entity, entityId, from, to, trigger, reason, actor, attempt, requestId, metadata],
  );
}

/** The latest `limit` transitions after `afterSeq`, oldest first. */
export function listLatestTransitions(reader: Reader, afterSeq: number, limit: number, entityId?: string): TransitionRow[] {
  return entityId
    ? reader.all<TransitionRow>(
        'SELECT * FROM (SELECT * FROM transitions WHERE entity_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?) AS latest ORDER BY seq',
        [entityId, afterSeq, limit],
      )
    : reader.all<TransitionRow>(
        'SELECT * FROM (SELECT * FROM transitions WHERE seq > ? ORDER BY seq DESC LIMIT ?) AS latest ORDER BY seq',
        [afterSeq, limit],
      );
}

/** Transitions after `afterSeq`, oldest first; only those of `entityId` when it is given. */
export function listTransitions(reader: Reader, afterSeq: number, limit: number, entityId?: string): TransitionRow[] {
  return entityId
    ? reader.all<TransitionRow>('SELECT * FROM transitions WHERE entity_id = ? AND seq > ? ORDER BY seq LIMIT ?', [
        entityId,
        afterSeq,
        limit,
      ])
    : reader.all<TransitionRow>('SELECT * FROM transitions WHERE seq > ? ORDER BY seq LIMIT ?', [afterSeq, limit]);
}

/**
 * The metadata (JSON text) of the worker's assignment before its latest one: which task and
 * attempt its worktree may still hold.
 */
export function findPreviousAssignMetadata(reader: Reader, workerId: string): string | undefined {
  return (
    reader.get<{ metadata: string | null }>(
      `SELECT metadata FROM transitions WHERE entity_type = 'worker' AND entity_id = ? AND trigger = 'assign' ORDER BY seq DESC LIMIT 1 OFFSET 1`,
      [workerId],
    )?.metadata ?? undefined
  );
}

/** Applied transitions per entity and state pair, most frequent first. */
export function countTransitionPairs(reader: Reader): Array<{ entity: string; from: string; to: string; count: number }> {
  return reader.all<{ entity: string; from: string; to: string; count: number }>(
    `SELECT entity_type AS entity, from_state AS "from", to_state AS "to", COUNT(*) AS count
     FROM transitions GROUP BY entity_type, from_state, to_state ORDER BY count DESC`,
  );
}

/** How long entities stayed in each state, from consecutive audit rows of the same entity. */
export function summarizeTimeInState(
  reader: Reader,
): Array<{ entity: string; state: string; count: number; totalMs: number; maxMs: number }> {
  return reader.all<{ entity: string; state: string; count: number; totalMs: number; maxMs: number }>(
    // Aliases quoted: PostgreSQL folds unquoted names to lower case.
    `SELECT entity AS entity, state AS state, COUNT(*) AS count, SUM(duration) AS "totalMs", MAX(duration) AS "maxMs"
     FROM (SELECT entity_type AS entity, to_state AS state,
                  LEAD(ts_ms) OVER (PARTITION BY entity_type, entity_id ORDER BY seq) - ts_ms AS duration
           FROM transitions) AS stays
     WHERE duration IS NOT NULL GROUP BY entity, state ORDER BY entity, state`,
  );
}

/** The latest transition's seq; 0 when there is none. */
export function lastTransitionSeq(reader: Reader): number {
  return reader.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM transitions')?.seq ?? 0;
}

/** What changed after `afterSeq`, oldest first, at most `limit`: which worker or task, no more (views read the rows). */
export function listTransitionSubjects(
  reader: Reader,
  afterSeq: number,
  limit: number,
): Array<{ seq: number; entity_type: 'worker' | 'task'; entity_id: string }> {
  return reader.all('SELECT seq, entity_type, entity_id FROM transitions WHERE seq > ? ORDER BY seq LIMIT ?', [afterSeq, limit]);
}
