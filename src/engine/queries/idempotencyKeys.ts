import type { Reader, Tx } from '../ports';
import { appendRow } from './appendRow';

/** The `idempotency_keys` table (seed 004 §3): the first response to a request id, until it expires. */

export interface IdempotencyKey {
  readonly command: string;
  /** JSON text of the first result's value. */
  readonly response: string;
}

/** The unexpired key of a request id. */
export function findIdempotencyKey(reader: Reader, requestId: string, now: number): IdempotencyKey | undefined {
  return reader.get<IdempotencyKey>('SELECT command, response FROM idempotency_keys WHERE request_id = ? AND expires_at >= ?', [
    requestId,
    now,
  ]);
}

export function insertIdempotencyKey(tx: Tx, requestId: string, command: string, response: string, now: number, expiresAt: number): void {
  appendRow(tx, 'INSERT INTO idempotency_keys (request_id, command, response, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', [
    requestId,
    command,
    response,
    now,
    expiresAt,
  ]);
}

/** Forgets the keys that expired before `now`. */
export function deleteExpiredIdempotencyKeys(tx: Tx, now: number): void {
  appendRow(tx, 'DELETE FROM idempotency_keys WHERE expires_at < ?', [now]);
}

export function countIdempotencyKeys(reader: Reader): number {
  return reader.get<{ n: number }>('SELECT COUNT(*) AS n FROM idempotency_keys')?.n ?? 0;
}
