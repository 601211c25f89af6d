import type { Tx } from '../ports';
import { appendRow } from './appendRow';

/** The `task_claims` table: who holds a running task, and until when its lease lasts without a heartbeat. */

/** Records (or takes over) the claim of a task. */
export function upsertTaskClaim(tx: Tx, taskId: string, workerId: string, attempt: number, now: number, leaseUntil: number): void {
  appendRow(
    tx,
    `INSERT INTO task_claims (task_id, claimed_by, attempt, claimed_at_ms, lease_until_ms) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(task_id) DO UPDATE SET claimed_by = excluded.claimed_by, attempt = excluded.attempt,
         claimed_at_ms = excluded.claimed_at_ms, lease_until_ms = excluded.lease_until_ms`,
    [taskId, workerId, attempt, now, leaseUntil],
  );
}

/** Extends the lease of a claim, if `workerId` still holds it. */
export function renewTaskLease(tx: Tx, taskId: string, workerId: string, leaseUntil: number): void {
  appendRow(tx, 'UPDATE task_claims SET lease_until_ms = ? WHERE task_id = ? AND claimed_by = ?', [leaseUntil, taskId, workerId]);
}

export function deleteTaskClaim(tx: Tx, taskId: string): void {
  tx.run('DELETE FROM task_claims WHERE task_id = ?', [taskId]);
}
