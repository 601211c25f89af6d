/**
 * Opening a store (ARCHITECTURE §2): its folder recovered or created, its database migrated, and
 * the checkpoint a recovery or a migration calls for; or a store with no files at all.
 */
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { AckFile, readAckFile } from './ackFile';
import { assertNothingAcknowledged } from './acknowledged';
import { Connection } from './connection';
import { JournalWriter } from './journal';
import { applyMigrations, schemaVersionOf } from './migrator';
import { migrations as knownMigrations } from './migrations/index';
import { type PreloadedStore, catchUp, preloadStore } from './preload';
import { loadSqlJs } from './sqlJsModule';
import { StoreError } from './storeError';
import { configure, loadDatabase, useIncrementalVacuum } from './storeLoader';
import { completeInterruptedCheckpoint, ensureForemanDir, journalName, listStoreFiles, setDamagedImageAside } from './storeFiles';
import { type Disk, type SqlJsStoreOptions, diskOf, writeFirstImage } from './storeDisk';

/** What a store is made of, in its constructor's order. */
export type StoreParts = [
  connection: Connection,
  /** Absent for a store that lives only in memory. */
  disk: Disk | undefined,
  /** The seq of the last journal record written (or included in the loaded image). */
  lastSeq: number,
  /** The schema version in use, stamped on each journal record. */
  schema: number,
  log: (line: string) => void,
];

/** The store made from its parts; opening checkpoints it when a recovery or a migration calls for one. */
type MakeStore<S> = (...parts: StoreParts) => S;

/**
 * Opens (recovering or creating as needed) the store kept in `foremanDir`, usually `.foreman/`.
 * A disk that fails a read or a write on the way is `cannotOpen`, naming what failed.
 */
export async function openStoreFolder<S extends { checkpoint(): void }>(
  foremanDir: string,
  options: SqlJsStoreOptions,
  make: MakeStore<S>,
): Promise<S> {
  try {
    return await openOrThrow(foremanDir, options, make);
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

async function openOrThrow<S extends { checkpoint(): void }>(foremanDir: string, options: SqlJsStoreOptions, make: MakeStore<S>): Promise<S> {
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
  const connection = loaded?.connection ?? newConnection(SQL);
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
    journal = JournalWriter.open(path.join(foremanDir, active), loaded?.currentJournalValidBytes, loaded?.currentJournalRecords);
    const disk = diskOf(foremanDir, journal, active, ack, options);
    const store = make(connection, disk, lastSeq, schemaVersionOf(connection), log);
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
export async function preloadStoreFolder(foremanDir: string, options: Pick<SqlJsStoreOptions, 'migrations'>): Promise<PreloadedStore | undefined> {
  return preloadStore(await loadSqlJs(), foremanDir, options.migrations ?? knownMigrations);
}

/** A store with no files, for tests and benchmarks: writes commit but are never journalled. */
export async function openStoreInMemory<S>(options: Pick<SqlJsStoreOptions, 'migrations'>, make: MakeStore<S>): Promise<S> {
  const connection = newConnection(await loadSqlJs());
  useIncrementalVacuum(connection);
  applyMigrations(connection, options.migrations ?? knownMigrations);
  return make(connection, undefined, 0, schemaVersionOf(connection), () => undefined);
}

function newConnection(SQL: SqlJsStatic): Connection {
  const connection = new Connection(new SQL.Database());
  configure(connection);
  return connection;
}
