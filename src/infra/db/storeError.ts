/**
 * Why the store cannot be used. These are exceptions, not results (STYLE rule 3): each means a
 * broken environment or a bug, and the message tells a person what to do.
 */
export type StoreErrorCode =
  /** The files on disk do not hold every acknowledged transaction; nothing was changed. */
  | 'damaged'
  /** Opening failed on the way (the disk refused a read or a write); this call changed nothing. */
  | 'cannotOpen'
  /** The database was written by a newer Foreman. */
  | 'newerSchema'
  /**
   * One write could not be saved (a full disk): it was rolled back, nothing was half written, and
   * the store goes on; the same write succeeds once the cause is gone.
   */
  | 'notSaved'
  /**
   * An fsync of the journal failed: what it was to save may or may not be on disk, so the writes
   * it covered are neither done nor not done. The store takes no more writes (it is `broken` from
   * then on); the next open tells what is there.
   */
  | 'outcomeUnknown'
  /** The journal could not be brought back in line with memory; the process must reopen the store. */
  | 'broken'
  /** The store was used in a way the code must never do (reentrant write, use after close). */
  | 'misuse'
  /**
   * The database server (PostgreSQL) cannot be reached or the connection was lost; the message
   * names the server (never its password) and whether the change was written.
   */
  | 'unreachable';

import { type Failure, refused } from '../../core/result';

export class StoreError extends Error {
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreError';
  }
}

/**
 * The answer for a request that met an expected store condition, or undefined for a bug. Shared by
 * the CLI and the endpoint, so a full disk reads the same whether a one-shot call or an owner hit it.
 */
export function storeFailure(error: unknown): Failure | undefined {
  if (!(error instanceof StoreError)) return undefined;
  switch (error.code) {
    case 'damaged':
      return refused('storeDamaged', error.message);
    case 'cannotOpen':
      return refused('storeCannotOpen', error.message);
    case 'newerSchema':
      return refused('storeTooNew', error.message);
    case 'notSaved':
      return refused('notSaved', error.message);
    case 'unreachable':
      return refused('storeUnreachable', error.message);
    case 'outcomeUnknown':
      return refused('outcomeUnknown', error.message);
    case 'broken':
      // Refused before anything was applied: this request is not done, and the owner is reopening.
      return refused('storeBroken', error.message);
    default:
      return undefined;
  }
}
