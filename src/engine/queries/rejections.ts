import type { Reader, Tx } from '../ports';

/** The `rejections` table: refused requests (illegal transitions, stale attempts), for metrics and audits. */

export interface RejectionInsert {
  readonly tsMs: number;
  readonly entity: 'worker' | 'task';
  readonly entityId: string;
  readonly fromState: string | null;
  readonly trigger: string;
  readonly code: string;
  readonly reason: string;
  readonly actor: string;
  readonly attempt: number | null;
  readonly requestId: string | null;
}

export function insertRejection(tx: Tx, rejection: RejectionInsert): void {
  tx.run(
    `INSERT INTO rejections (ts_ms, entity_type, entity_id, from_state, trigger, code, reason, actor, attempt, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      rejection.tsMs,
      rejection.entity,
      rejection.entityId,
      rejection.fromState,
      rejection.trigger,
      rejection.code,
      rejection.reason,
      rejection.actor,
      rejection.attempt,
      rejection.requestId,
    ],
  );
}

/** Rejections by code. */
export function countRejectionsByCode(reader: Reader): Array<{ code: string; count: number }> {
  return reader.all<{ code: string; count: number }>('SELECT code, COUNT(*) AS count FROM rejections GROUP BY code');
}
