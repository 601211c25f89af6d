/**
 * Who may merge right now. On one machine mergeQueue.ts's in-process queue is enough (only the owner
 * merges, ARCHITECTURE §2); a crew over several machines holds a lock all of them see (the
 * PostgreSQL one: src/infra/pg/mergeLock.ts) around each merge, so merges land one at a time. The
 * lock is for order, not for safety: the base only ever moves by fast-forward pushes, which git
 * itself refuses when someone else got there first.
 */
/** What a merge holding the lock may ask of it. */
export interface MergeLease {
  /** Aborted when the lock was lost while held (its connection dropped): the merge must not push. */
  readonly signal: AbortSignal;
  /** Asks the lock's holder (a round trip to the server for a remote lock) whether it still holds it. */
  stillHeld(): Promise<boolean>;
}

export interface MergeLock {
  /** Runs `fn` while holding the lock, and releases it however `fn` ends. */
  run<T>(fn: (lease: MergeLease) => Promise<T>): Promise<T>;
}

/** The lock could not be taken (a timeout, no server) or was lost: the merge did not happen. */
export class MergeLockError extends Error {
  constructor(
    readonly code: 'mergeLockTimeout' | 'mergeLockUnavailable' | 'mergeLockLost',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MergeLockError';
  }
}

/** A lease nothing can take away: the lock lives in this process. */
export const heldForGood: MergeLease = { signal: new AbortController().signal, stillHeld: () => Promise.resolve(true) };
