/**
 * The durable single-writer store (ARCHITECTURE §2): sql.js in memory, every committed write
 * appended to a redo journal and fsync'd before it is acknowledged, and checkpoints that export the
 * whole image without ever leaving the folder unloadable.
 */
import type { Reader, Store, Tx, WriteOptions } from '../../engine/ports';
import type { Result } from '../../core/result';
import type { Connection } from './connection';
import { JournalCutFailed, JournalSyncFailed } from './journal';
import { type SyncHost, raiseAck, saveGroup, syncJournal } from './journalSync';
import type { PreloadedStore } from './preload';
import { StoreError } from './storeError';
import { journalName } from './storeFiles';
import { type StoreParts, openStoreFolder, openStoreInMemory, preloadStoreFolder } from './storeOpen';
import { GuardedReader, Transaction } from './transaction';
import { type Disk, type SqlJsStoreOptions, appendRecord, snapshotImage, writeTempImage } from './storeDisk';
import { installNow, rotate } from './checkpointer';
import { CheckpointScheduler, type ImageSources } from './checkpointScheduler';
import { GroupSave } from './groupSave';

export type { SqlJsStoreOptions } from './storeDisk';

type StoreState = 'open' | 'broken' | 'closed';

export class SqlJsStore implements Store {
  /** Runs the `sqlite` text of a statement written per store (engine/ports/store.ts `NativeSql`). */
  readonly dialect = 'sqlite';
  private state: StoreState = 'open';
  private brokenBecause = '';
  private writing = false;
  /** Group commit: durable writes inside `savingLater` share one fsync (groupSave.ts, journalSync.ts). */
  private readonly group = new GroupSave(() => saveGroup(this.disk, this.lastSeq, this.syncHost));
  private readonly reader: Reader;
  /** Runs checkpoints while the store answers, and keeps their replica; absent for a store in memory. */
  private readonly checkpoints: CheckpointScheduler | undefined;
  /** What the journal's fsyncs (journalSync.ts) need of the store. */
  private readonly syncHost: SyncHost = {
    open: () => this.state === 'open',
    brokenBecause: () => this.brokenBecause,
    markBroken: (reason) => this.markBroken(reason),
    log: (line) => this.log(line),
  };

  private constructor(
    private readonly connection: Connection,
    private readonly disk: Disk | undefined,
    /** The seq of the last journal record written (or included in the loaded image). */
    private lastSeq: number,
    /** Stamped on each journal record, so a replay knows which migrations come first. */
    private readonly schema: number,
    private readonly log: (line: string) => void,
  ) {
    this.reader = new GuardedReader(connection);
    this.checkpoints =
      disk &&
      new CheckpointScheduler(disk, {
        usable: () => this.state === 'open',
        syncJournal: () => syncJournal(disk, this.lastSeq, this.syncHost),
        snapshot: () => snapshotImage(this.connection, this.lastSeq),
        lastSeq: () => this.lastSeq,
        log,
        markBroken: (reason) => this.markBroken(reason),
      });
  }

  /**
   * Opens (recovering or creating as needed) the store kept in `foremanDir`, usually `.foreman/`.
   * A disk that fails a read or a write on the way is `cannotOpen`, naming what failed.
   */
  static open(foremanDir: string, options: SqlJsStoreOptions = {}): Promise<SqlJsStore> {
    return openStoreFolder(foremanDir, options, (...parts: StoreParts) => new SqlJsStore(...parts));
  }

  /**
   * Loads the store in `foremanDir` without taking anything or writing anything, for `open` to
   * catch up under the lock (preload.ts); undefined when only a load under the lock will do.
   */
  static preload(foremanDir: string, options: Pick<SqlJsStoreOptions, 'migrations'> = {}): Promise<PreloadedStore | undefined> {
    return preloadStoreFolder(foremanDir, options);
  }

  /** A store with no files, for tests and benchmarks: writes commit but are never journalled. */
  static openInMemory(options: Pick<SqlJsStoreOptions, 'migrations'> = {}): Promise<SqlJsStore> {
    return openStoreInMemory(options, (...parts: StoreParts) => new SqlJsStore(...parts));
  }

  read<T>(fn: (reader: Reader) => T): T {
    this.assertUsable('read');
    if (this.writing) return fn(this.reader);
    try {
      return fn(this.reader);
    } catch (error) {
      // Outside a transaction a writing Reader statement has already committed, unjournalled.
      if (error instanceof StoreError && error.code === 'misuse') this.markBroken(error.message);
      throw error;
    }
  }

  /**
   * Runs `fn` in one transaction. The journal record is written (and fsync'd when durable) before
   * the in-memory COMMIT: a full disk then fails this one write, rolled back with nothing half
   * saved, and the store goes on; the next write succeeds once there is space again (issue 10).
   */
  write<T>(fn: (tx: Tx) => Result<T>, options: WriteOptions = {}): Result<T> {
    this.assertUsable('write');
    if (this.writing)
      throw new StoreError('misuse', 'Store.write was called inside another Store.write; compose the work into one transaction.');
    const tx = new Transaction(this.connection);
    let result: Result<T>;
    let record: Buffer | undefined;
    let durable = false;
    let deferred = false;
    this.writing = true;
    try {
      this.connection.run('BEGIN');
      try {
        result = fn(tx);
        if (typeof result !== 'object' || result === null || typeof (result as { ok?: unknown }).ok !== 'boolean') {
          throw new StoreError('misuse', 'A Store.write callback must return a Result synchronously.');
        }
      } catch (error) {
        this.rollback();
        throw error;
      }
      if (!result.ok) {
        this.rollback();
        return result;
      }
      // A durable write inside `savingLater` is written now and fsync'd by the next group save.
      const wanted = typeof options.durable === 'function' ? options.durable() : (options.durable ?? true);
      deferred = wanted && this.group.deferringNow;
      durable = wanted && !deferred;
      // Encoded once: the same bytes go to the journal and to the replica.
      record =
        this.disk && tx.changedAnything
          ? this.disk.journal.encode(
              { seq: this.lastSeq + 1, ts: Date.now(), schema: this.schema, stmts: tx.statements },
              this.disk.unnumbered,
            )
          : undefined;
      const journalled = this.disk && record ? this.journalBeforeCommit(this.disk, record, durable) : undefined;
      try {
        this.connection.run('COMMIT');
      } catch (error) {
        this.rollback();
        if (journalled !== undefined) this.unjournal(journalled, error);
        throw error;
      }
    } finally {
      tx.close();
      this.writing = false;
    }
    if (this.disk && record) {
      this.afterCommit(this.disk, record, durable);
      if (deferred) this.group.committed();
    }
    return result;
  }

  /** Group commit: `fn`'s durable writes are fsync'd together soon after (groupSave.ts). */
  savingLater<T>(fn: () => T): T {
    return this.group.run(fn);
  }

  /** Resolves once every durable write so far is fsync'd; rejects if that fsync failed (the store is then broken). */
  whenSaved(): Promise<void> {
    return this.group.whenSaved();
  }

  checkpoint(): void {
    this.assertUsable('checkpoint');
    if (this.writing)
      throw new StoreError('misuse', 'Store.checkpoint was called inside Store.write; sql.js cannot export inside a transaction.');
    const disk = this.disk;
    if (!disk) return;
    this.checkpoints?.settle();
    this.assertUsable('checkpoint');
    rotate(disk, () => syncJournal(disk, this.lastSeq, this.syncHost));
    this.checkpoints?.imageWritten(writeTempImage(disk.dir, this.connection, this.lastSeq, disk.fileStep));
    try {
      installNow(disk);
    } catch (error) {
      // Files are half rotated (each step still loadable); what follows would not know which.
      this.markBroken(`a checkpoint failed while replacing files: ${String(error)}`);
      throw error;
    }
  }

  /** How many background checkpoints took their image from the replica, and how many exported here. */
  get imageSources(): Readonly<ImageSources> {
    return { ...(this.checkpoints?.sources ?? { fromReplica: 0, exportedHere: 0 }) };
  }

  /** Whether a replica is loaded and following the writes (tests and benchmarks look). */
  get replicaReady(): boolean {
    return this.checkpoints?.replicaReady === true;
  }

  /** Resolves once no checkpoint is due or under way (tests and benchmarks wait here). */
  async whenIdle(): Promise<void> {
    await this.checkpoints?.whenIdle();
  }

  /** Checkpoints (unless the store is broken) and releases the database. Safe to call twice. */
  close(): void {
    if (this.state === 'closed') return;
    if (this.writing) throw new StoreError('misuse', 'Store.close was called inside Store.write.');
    try {
      if (this.state === 'open') this.checkpoints?.settle();
      // Below the threshold the journal stays (replayed at the next open); only what is unsynced is
      // synced. A rotated store has records in two segments: one image folds them back into one.
      if (this.state === 'open' && this.disk) {
        if (this.disk.journal.recordBytes >= this.disk.closeCheckpointBytes || this.disk.active !== journalName) this.checkpoint();
        else syncJournal(this.disk, this.lastSeq, this.syncHost);
      }
      // The close's own sync (or checkpoint) saved the group's writes.
      if (this.state === 'open') this.group.savedElsewhere();
    } finally {
      this.checkpoints?.dropReplica();
      this.disk?.journal.close();
      this.disk?.ack.close();
      this.connection.close();
      this.state = 'closed';
      this.group.saveNow();
    }
  }

  /** The schema version in use (the newest migration applied). */
  get schemaVersion(): number {
    return this.schema;
  }

  /**
   * Appends the transaction's record (storeDisk's `appendRecord`); a failed append rolls the
   * transaction back, and only a journal that could not be cut back leaves the store broken.
   */
  private journalBeforeCommit(disk: Disk, record: Buffer, durable: boolean): number {
    try {
      return appendRecord(disk, record, durable);
    } catch (error) {
      this.rollback();
      if (error instanceof StoreError && (error.cause instanceof JournalCutFailed || error.cause instanceof JournalSyncFailed)) {
        this.markBroken(error.cause.message);
      }
      throw error;
    }
  }

  /** The record of a transaction whose COMMIT failed: never acknowledged, so it is removed. */
  private unjournal(recordStart: number, commitError: unknown): void {
    const disk = this.disk;
    if (!disk) return;
    try {
      disk.journal.removeLast(recordStart);
    } catch (error) {
      this.markBroken(`the journal holds a record whose commit failed (${String(commitError)}), and removing it failed: ${String(error)}`);
    }
  }

  private afterCommit(disk: Disk, record: Buffer, durable: boolean): void {
    this.lastSeq++;
    if (durable) raiseAck(disk, this.lastSeq, this.syncHost.log);
    this.checkpoints?.afterCommit(record);
  }

  private rollback(): void {
    try {
      this.connection.run('ROLLBACK');
    } catch {
      // SQLite already rolled back (some errors end the transaction themselves).
    }
  }

  private markBroken(reason: string): void {
    if (this.state !== 'open') return;
    this.checkpoints?.dropReplica();
    this.state = 'broken';
    this.brokenBecause = reason;
    this.log(`Store is unusable: ${reason}`);
    this.disk?.onBroken(reason);
  }

  private assertUsable(operation: string): void {
    if (this.state === 'closed') throw new StoreError('misuse', `Store.${operation} was called after close().`);
    if (this.state === 'broken') {
      throw new StoreError('broken', `The store cannot be used (${this.brokenBecause}); reopen it to continue from the last saved write.`);
    }
  }
}
