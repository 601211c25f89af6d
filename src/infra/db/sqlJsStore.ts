/**
 * The durable single-writer store (ARCHITECTURE §2): sql.js in memory, every committed write
 * appended to a redo journal and fsync'd before it is acknowledged, and checkpoints that export the
 * whole image without ever leaving the folder unloadable.
 */
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { Reader, Store, Tx, WriteOptions } from '../../engine/ports';
import type { Result } from '../../core/result';
import { AckFile, readAckFile } from './ackFile';
import { Connection } from './connection';
import { JournalCutFailed, JournalSyncFailed, JournalWriter, encodeRecord } from './journal';
import { applyMigrations, schemaVersionOf } from './migrator';
import { migrations as knownMigrations } from './migrations/index';
import { loadSqlJs } from './sqlJsModule';
import { StoreError } from './storeError';
import { assertNothingAcknowledged } from './acknowledged';
import { configure, loadDatabase, useIncrementalVacuum } from './storeLoader';
import {
  completeInterruptedCheckpoint,
  ensureForemanDir,
  fileSizeOr0,
  imageName,
  journalName,
  listStoreFiles,
  setDamagedImageAside,
} from './storeFiles';
import { GuardedReader, Transaction } from './transaction';
import {
  type Disk,
  type SqlJsStoreOptions,
  appendRecord,
  diskOf,
  outcomeUnknown,
  snapshotImage,
  writeFirstImage,
  writeTempImage,
} from './storeDisk';
import { installNow, prepareNextSegment, rotate } from './checkpointer';
import { CheckpointScheduler, type ImageSources } from './checkpointScheduler';
import { GroupSave } from './groupSave';
import { StoreReplica } from './replica';

export type { SqlJsStoreOptions } from './storeDisk';
import { type PreloadedStore, catchUp, preloadStore } from './preload';

type StoreState = 'open' | 'broken' | 'closed';

/** Replicas started per store before it stops trying (each failure is logged). */
const maxReplicaStarts = 3;

export class SqlJsStore implements Store {
  private state: StoreState = 'open';
  private brokenBecause = '';
  private writing = false;
  /** Group commit: durable writes inside `savingLater` share one fsync (groupSave.ts). */
  private readonly group = new GroupSave(() => this.saveGroup());
  private readonly reader: Reader;
  /** Runs checkpoints while the store answers (checkpointer.ts); absent for a store in memory. */
  private readonly checkpoints: CheckpointScheduler | undefined;
  /** A copy on another thread that exports for checkpoints (replica.ts), once the image is large. */
  private replica: StoreReplica | undefined;
  private replicaStarts = 0;
  /** The size of the last image written, which decides whether a replica is worth its memory. */
  private imageBytes: number;

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
    this.imageBytes = disk ? fileSizeOr0(path.join(disk.dir, imageName)) : 0;
    this.checkpoints =
      disk &&
      new CheckpointScheduler(disk, {
        usable: () => this.state === 'open',
        syncJournal: () => this.syncJournal(disk),
        snapshot: () => snapshotImage(this.connection, this.lastSeq),
        snapshotElsewhere: () => (this.replica?.ready ? this.replica.image(this.lastSeq) : undefined),
        replicaLoading: () => this.replica?.loading === true,
        installed: (imageBytes) => (this.imageBytes = imageBytes),
        log,
        markBroken: (reason) => this.markBroken(reason),
      });
  }

  /**
   * Opens (recovering or creating as needed) the store kept in `foremanDir`, usually `.foreman/`.
   * A disk that fails a read or a write on the way is `cannotOpen`, naming what failed.
   */
  static async open(foremanDir: string, options: SqlJsStoreOptions = {}): Promise<SqlJsStore> {
    try {
      return await SqlJsStore.openOrThrow(foremanDir, options);
    } catch (error) {
      if (error instanceof StoreError || typeof (error as NodeJS.ErrnoException).code !== 'string') throw error;
      throw new StoreError(
        'cannotOpen',
        `The store in ${foremanDir} could not be opened: ${String(error)}. This call changed nothing that was acknowledged; ` +
          'check the disk (free space, permissions, the kernel log) and try again.',
        { cause: error },
      );
    }
  }

  private static async openOrThrow(foremanDir: string, options: SqlJsStoreOptions): Promise<SqlJsStore> {
    const SQL = await loadSqlJs();
    const log = options.log ?? (() => undefined);
    const migrations = options.migrations ?? knownMigrations;
    ensureForemanDir(foremanDir);
    completeInterruptedCheckpoint(foremanDir, log);
    const files = listStoreFiles(foremanDir);
    const ackRead = readAckFile(foremanDir);
    const fresh = files.images.length === 0 && files.journals.length === 0;
    if (fresh) assertNothingAcknowledged(foremanDir, ackRead);
    const caughtUp = options.preloaded && catchUp(options.preloaded, foremanDir, files, ackRead, migrations, log);
    const loaded = fresh ? undefined : (caughtUp ?? loadDatabase(SQL, foremanDir, files, migrations, log, ackRead));
    const connection = loaded?.connection ?? SqlJsStore.newConnection(SQL);
    let journal: JournalWriter | undefined;
    let ack: AckFile | undefined;
    try {
      const vacuumed = useIncrementalVacuum(connection);
      const applied = applyMigrations(connection, migrations);
      const lastSeq = loaded?.lastSeq ?? 0;
      // The mark exists before the first image that requires it (a crash in between leaves a folder
      // that reads as new), and it is raised to what was loaded (it may lag after a power loss).
      ack = AckFile.open(foremanDir, ackRead.kind === 'seq' ? Math.max(ackRead.seq, lastSeq) : lastSeq, ackRead);
      // A new folder gets its image before any journal exists: a crash in between leaves a folder
      // that still reads as new, rather than a journal without an image (which is refused).
      if (fresh) writeFirstImage(foremanDir, connection);
      if (loaded?.recovered) setDamagedImageAside(foremanDir, files.images, loaded.image?.name, log);
      // Cutting a torn tail first: records appended after garbage would read as damage later.
      const active = loaded?.activeJournal ?? journalName;
      journal = JournalWriter.open(path.join(foremanDir, active), loaded?.currentJournalValidBytes);
      const disk = diskOf(foremanDir, journal, active, ack, options);
      const store = new SqlJsStore(connection, disk, lastSeq, schemaVersionOf(connection), log);
      // Migrations are not journalled, a recovery should not have to be repeated next time, and an
      // image from before foreman.ack must learn that the file is now required.
      if (!fresh && (applied.length > 0 || vacuumed || loaded?.recovered || loaded?.ackRequired === false)) store.checkpoint();
      if (!fresh && applied.length > 0) log(`Migrated the database in ${foremanDir} to schema version ${applied.at(-1) ?? 0}.`);
      return store;
    } catch (error) {
      journal?.close();
      ack?.close();
      connection.close();
      throw error;
    }
  }

  /**
   * Loads the store in `foremanDir` without taking anything or writing anything, for `open` to
   * catch up under the lock (preload.ts); undefined when only a load under the lock will do.
   */
  static async preload(foremanDir: string, options: Pick<SqlJsStoreOptions, 'migrations'> = {}): Promise<PreloadedStore | undefined> {
    return preloadStore(await loadSqlJs(), foremanDir, options.migrations ?? knownMigrations);
  }

  /** A store with no files, for tests and benchmarks: writes commit but are never journalled. */
  static async openInMemory(options: Pick<SqlJsStoreOptions, 'migrations'> = {}): Promise<SqlJsStore> {
    const connection = SqlJsStore.newConnection(await loadSqlJs());
    useIncrementalVacuum(connection);
    applyMigrations(connection, options.migrations ?? knownMigrations);
    return new SqlJsStore(connection, undefined, 0, schemaVersionOf(connection), () => undefined);
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
          ? encodeRecord({ seq: this.lastSeq + 1, ts: Date.now(), schema: this.schema, stmts: tx.statements })
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

  /**
   * The group's fsync. Its writes are committed in memory and written to the journal; when the
   * fsync fails (or the store broke or closed before it) they may be on disk or not: the waiters
   * hear `outcomeUnknown`, never "not done".
   */
  private saveGroup(): void {
    if (this.state !== 'open' || !this.disk) {
      throw new StoreError(
        'outcomeUnknown',
        `Foreman cannot tell whether the last changes were saved (${this.brokenBecause || 'the store closed before saving them'}). ` +
          'They may or may not be recorded; look (foreman status, foreman history <id>) before repeating them.',
      );
    }
    this.syncJournal(this.disk);
  }

  checkpoint(): void {
    this.assertUsable('checkpoint');
    if (this.writing)
      throw new StoreError('misuse', 'Store.checkpoint was called inside Store.write; sql.js cannot export inside a transaction.');
    const disk = this.disk;
    if (!disk) return;
    this.checkpoints?.settle();
    this.assertUsable('checkpoint');
    rotate(disk, () => this.syncJournal(disk));
    this.imageBytes = writeTempImage(disk.dir, this.connection, this.lastSeq, disk.fileStep);
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
    return this.replica?.ready === true;
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
        if (this.disk.journal.size >= this.disk.closeCheckpointBytes || this.disk.active !== journalName) this.checkpoint();
        else this.syncJournal(this.disk);
      }
      // The close's own sync (or checkpoint) saved the group's writes.
      if (this.state === 'open') this.group.savedElsewhere();
    } finally {
      this.replica?.dispose();
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
    if (durable) this.raiseAck(disk);
    this.replica?.send(record);
    if (disk.journal.size > disk.checkpointBytes / 2) {
      prepareNextSegment(disk, this.log);
      this.startReplica(disk);
    }
    this.checkpoints?.afterCommit();
  }

  /**
   * Starts a replica half way to a checkpoint, when the image is large enough for its export to be
   * felt (a one-shot call or a small store never gets one), while no checkpoint moves the files it
   * loads. A replica that keeps failing is given up on; checkpoints then export here.
   */
  private startReplica(disk: Disk): void {
    if (this.replica?.failed === false || this.imageBytes < disk.replicaFromBytes || this.checkpoints?.busy) return;
    if (disk.active !== journalName || this.replicaStarts >= maxReplicaStarts) return;
    this.replicaStarts++;
    this.replica = new StoreReplica(disk.dir, this.lastSeq, this.log);
  }

  /** Makes every appended record durable, then says so in foreman.ack. */
  private syncJournal(disk: Disk): void {
    try {
      disk.journal.sync();
    } catch (error) {
      if (!(error instanceof JournalSyncFailed)) throw error;
      this.markBroken(error.message);
      throw outcomeUnknown(error);
    }
    this.raiseAck(disk);
  }

  /** Only after the journal's fsync: the mark must never name a record that is not on disk. */
  private raiseAck(disk: Disk): void {
    disk.ack.raise(
      this.lastSeq,
      (error) => this.log(`Updating the acknowledged mark in ${disk.dir} failed (${String(error)}); the write itself is saved.`),
      (line) => this.log(line),
    );
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
    this.replica?.dispose();
    this.replica = undefined;
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

  private static newConnection(SQL: SqlJsStatic): Connection {
    const connection = new Connection(new SQL.Database());
    configure(connection);
    return connection;
  }
}
