/**
 * Why the store cannot be used. These are exceptions, not results (STYLE rule 3): each means a
 * broken environment or a bug, and the message tells a person what to do.
 */
export type StoreErrorCode =
  /** The files on disk do not hold every acknowledged transaction; nothing was changed. */
  | 'damaged'
  /** The database was written by a newer Foreman. */
  | 'newerSchema'
  /** A journal append failed after the in-memory commit; the process must reopen the store. */
  | 'broken'
  /** The store was used in a way the code must never do (reentrant write, use after close). */
  | 'misuse';

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
