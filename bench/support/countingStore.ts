/**
 * A store that counts what goes through it: the transactions and reads an owner made, so that a
 * bench can tell its own requests from the work other owners' notifications caused (a dispatcher
 * woken, a view reading rows again).
 */
import type { Reader, Store, Tx, WriteOptions } from '../../src/engine/ports';
import type { Result } from '../../src/core/result';

export interface StoreCounts {
  writes: number;
  reads: number;
}

export class CountingStore implements Store {
  readonly counts: StoreCounts = { writes: 0, reads: 0 };

  constructor(private readonly inner: Store) {}

  get dialect(): Store['dialect'] {
    return this.inner.dialect;
  }

  read<T>(fn: (reader: Reader) => T): T {
    this.counts.reads++;
    return this.inner.read(fn);
  }

  write<T>(fn: (tx: Tx) => Result<T>, options?: WriteOptions): Result<T> {
    this.counts.writes++;
    return this.inner.write(fn, options);
  }

  checkpoint(): void {
    this.inner.checkpoint();
  }

  close(): void {
    this.inner.close();
  }

  /** The counts so far, as a copy. */
  snapshot(): StoreCounts {
    return { ...this.counts };
  }
}
