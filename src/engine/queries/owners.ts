import type { Reader, Tx } from '../ports';
import type { WorkerRow } from '../rows';
import { underWay } from './stateIn';

/** The `owners` table (migration 6): one row per running owner of a shared store, with its lease. */

export interface OwnerRow {
  id: string;
  host: string;
  pid: number | null;
  started_at: number;
  lease_until_ms: number;
  released_at: number | null;
}

/** Registers an owner (or takes its row again, live, after it lost its lease) with a lease until `leaseUntil`. */
export function upsertOwner(tx: Tx, owner: { id: string; host: string; pid: number | null }, now: number, leaseUntil: number): void {
  tx.run(
    `INSERT INTO owners (id, host, pid, started_at, lease_until_ms, released_at) VALUES (?, ?, ?, ?, ?, NULL)
     ON CONFLICT(id) DO UPDATE SET host = excluded.host, pid = excluded.pid, lease_until_ms = excluded.lease_until_ms, released_at = NULL`,
    [owner.id, owner.host, owner.pid, now, leaseUntil],
  );
}

/** Extends a live owner's lease; 0 when its lease had run out and its work was taken back (or it has no row). */
export function renewOwnerLease(tx: Tx, id: string, leaseUntil: number): number {
  return tx.run('UPDATE owners SET lease_until_ms = ? WHERE id = ? AND released_at IS NULL', [leaseUntil, id]);
}

/** Owners other than `self` whose lease ran out before `now` and whose work nobody has taken back yet. */
export function listExpiredOwners(reader: Reader, now: number, self: string): OwnerRow[] {
  return reader.all<OwnerRow>('SELECT * FROM owners WHERE released_at IS NULL AND lease_until_ms < ? AND id <> ? ORDER BY id', [now, self]);
}

export function findOwner(reader: Reader, id: string): OwnerRow | undefined {
  return reader.get<OwnerRow>('SELECT * FROM owners WHERE id = ?', [id]);
}

/** Every owner, live or not, for status and `doctor`. */
export function listOwners(reader: Reader): OwnerRow[] {
  return reader.all<OwnerRow>('SELECT * FROM owners ORDER BY id');
}

/**
 * Marks an expired owner's work as taken back, only if its lease is still expired and nobody did it
 * first: the guard that lets racing owners take it back once (1, or 0 for the loser).
 */
export function releaseExpiredOwner(tx: Tx, id: string, now: number): number {
  return tx.run('UPDATE owners SET released_at = ? WHERE id = ? AND released_at IS NULL AND lease_until_ms < ?', [now, id, now]);
}

/** Workers an owner handed a task and that still run it (their attempt is under way). */
export function listBusyWorkersOfOwner(reader: Reader, ownerId: string): WorkerRow[] {
  return reader.all<WorkerRow>(`SELECT * FROM workers WHERE owner_id = ? AND ${underWay.sql} ORDER BY id`, [ownerId, ...underWay.params]);
}

/** Busy workers of a host that no owner's lease holds (their task came from a one-shot `foreman claim` or `assign`). */
export function listUnheldBusyWorkersOnHost(reader: Reader, host: string): WorkerRow[] {
  return reader.all<WorkerRow>(
    `SELECT * FROM workers WHERE host = ? AND owner_id IS NULL AND ${underWay.sql} ORDER BY id`,
    [host, ...underWay.params],
  );
}

/** Whether an owner other than `except` runs on `host` with a lease that has not run out. */
export function hasLiveOwnerOnHost(reader: Reader, host: string, now: number, except: string): boolean {
  return (
    reader.get<{ id: string }>('SELECT id FROM owners WHERE host = ? AND id <> ? AND released_at IS NULL AND lease_until_ms >= ?', [
      host,
      except,
      now,
    ]) !== undefined
  );
}

/**
 * A clean stop (issue 29): the owner's row goes, unless work still hangs on it: a busy worker it
 * handed a task, or one on its machine that no lease holds (then 0, and the lease is ended instead).
 */
export function deleteOwnerHoldingNothing(tx: Tx, id: string, host: string): number {
  return tx.run(
    `DELETE FROM owners WHERE id = ? AND NOT EXISTS (SELECT 1 FROM workers WHERE ${underWay.sql}
       AND (owner_id = ? OR (owner_id IS NULL AND host = ?)))`,
    [id, ...underWay.params, id, host],
  );
}

/**
 * A clean stop also clears its machine's history: rows of owners there whose work was taken back and
 * whose lease ended before `self` started (they are not coming back as themselves), so that status
 * does not take an old crash for the machine's latest news.
 */
export function deleteReleasedOwnersBefore(tx: Tx, self: string, host: string): number {
  return tx.run(
    `DELETE FROM owners WHERE host = ? AND id <> ? AND released_at IS NOT NULL
       AND lease_until_ms < (SELECT started_at FROM owners WHERE id = ?)`,
    [host, self, self],
  );
}

/** A clean stop while work hangs on the lease: it ends at `now`, so another owner takes that work back at its next check. */
export function endOwnerLease(tx: Tx, id: string, now: number): number {
  return tx.run('UPDATE owners SET lease_until_ms = ? WHERE id = ? AND released_at IS NULL AND lease_until_ms >= ?', [now - 1, id, now]);
}
