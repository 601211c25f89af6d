/**
 * Where a store keeps its files, and the file work of its writes and checkpoints that does not need
 * the store itself: writing an image, and saying why a write could not be saved.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Connection } from './connection';
import { writeImageFile } from './imageFile';
import { JournalCutFailed, JournalSyncFailed, JournalWriter } from './journal';
import type { AckFile } from './ackFile';
import type { Migration } from './migrations/index';
import type { PreloadedStore } from './preload';
import { StoreError } from './storeError';
import { ackRequiredKey } from './storeLoader';
import { nextStatements } from './journalFormat';
import { fsyncDirectory, imageName, type journalName, nextJournalName, tempImageName } from './storeFiles';
import type { FileStep } from './storeFiles';

export interface SqlJsStoreOptions {
  /** Receives one line per notable event: recoveries, torn records, checkpoint failures. */
  readonly log?: (line: string) => void;
  /**
   * Checkpoint after a write once the journal is larger than this. Default 2 MiB: opening after a
   * crash replays at most that (~0.2 s at 100k tasks), and with the replica a checkpoint costs the
   * owner's thread only its renames, so checkpointing often is cheap where it matters.
   */
  readonly checkpointBytes?: number;
  /**
   * Checkpoint too once the journal holds this many records. Default 2,000, about what 2 MiB held
   * of claims before records numbered their statements (journalFormat.ts): a compact 2 MiB holds
   * several times as many, and a crash would replay them all.
   */
  readonly checkpointRecords?: number;
  /**
   * At close, fold the journal into the image only when it is at least this long. Default 1:
   * whenever anything was written. One-shot CLI calls pass more, since a short journal is cheap to
   * replay and a full export per call is not.
   */
  readonly closeCheckpointBytes?: number;
  /**
   * Once the image is at least this large, a replica on another thread exports it for checkpoints
   * (replica.ts), so the owner's thread is not stopped by the copy. Default 4 MiB: below it the
   * export takes the owner about 20 ms or less, and the replica's cost (a second copy in memory,
   * and CPU on another thread for every write replayed) is not worth it. 0 always, Infinity never.
   */
  readonly replicaFromBytes?: number;
  /** Older images (and their journals) to keep as fallbacks. Default 2. */
  readonly backups?: number;
  /** The schema history; tests pass longer lists to exercise upgrades. Default: the shipped one. */
  readonly migrations?: readonly Migration[];
  /**
   * Called before each file-system step of a checkpoint (write, fsync, rename, create), with its
   * name. Tests throw here (after copying the folder) to see what a kill at that step leaves.
   */
  readonly fileStep?: FileStep;
  /**
   * The store as loaded before the owner lock was taken (preload.ts): only what was appended since
   * is replayed now. Discarded, and the files loaded as usual, when they changed in any other way.
   */
  readonly preloaded?: PreloadedStore;
  /**
   * Hears when writes stop being saved (a full disk: the message says so) and when they are saved
   * again (undefined), once per change, so a window can say so while the store goes on.
   */
  readonly onSavingChange?: (problem: string | undefined) => void;
  /**
   * Hears, once, that the store stopped taking writes (a failed fsync, a journal that could not be
   * cut back): its owner must close it and open it again from disk (`serve` exits; a window reopens).
   */
  readonly onBroken?: (reason: string) => void;
}

/** Where a store keeps its files; absent for a store that lives only in memory. */
export interface Disk {
  readonly dir: string;
  /** The segment appended to: `foreman.journal`, or `foreman.journal.next` from a rotation until its install. */
  journal: JournalWriter;
  active: typeof journalName | typeof nextJournalName;
  /** Whether `foreman.journal.next` is ready for the next rotation (created, its name fsync'd). */
  nextSegment: 'none' | 'preparing' | 'ready';
  /** Counts rotations, so that a preparation finishing late knows it is stale. */
  epoch: number;
  /** The acknowledged high-water mark kept beside the journal (ackFile.ts). */
  readonly ack: AckFile;
  readonly fileStep: FileStep;
  readonly checkpointBytes: number;
  readonly checkpointRecords: number;
  readonly closeCheckpointBytes: number;
  readonly backups: number;
  readonly replicaFromBytes: number;
  /** How full the journal must be (`journalShare`) to try the next automatic checkpoint. */
  nextCheckpointAt: number;
  readonly onSavingChange: (problem: string | undefined) => void;
  readonly onBroken: (reason: string) => void;
  /** Why the last write was not saved, until one is again. */
  savingProblem: string | undefined;
  /** The group's journal fsync under way on the thread pool (settles, never rejects), if any. */
  journalSyncing: Promise<void> | undefined;
  /** Statements written as text since the last segment was made, and how often: the next table's candidates. */
  readonly unnumbered: Map<string, number>;
}

/** The store's files with the options' defaults: 2 MiB journals, a checkpoint at any close, two backups. */
export function diskOf(dir: string, journal: JournalWriter, active: Disk['active'], ack: AckFile, options: SqlJsStoreOptions): Disk {
  const checkpointBytes = options.checkpointBytes ?? 2 * 1024 * 1024;
  return {
    dir,
    journal,
    active,
    nextSegment: 'none',
    epoch: 0,
    ack,
    fileStep: options.fileStep ?? (() => undefined),
    checkpointBytes,
    checkpointRecords: options.checkpointRecords ?? 2000,
    closeCheckpointBytes: options.closeCheckpointBytes ?? 1,
    backups: options.backups ?? 2,
    replicaFromBytes: options.replicaFromBytes ?? 4 * 1024 * 1024,
    nextCheckpointAt: 1,
    onSavingChange: options.onSavingChange ?? (() => undefined),
    onBroken: options.onBroken ?? (() => undefined),
    savingProblem: undefined,
    journalSyncing: undefined,
    unnumbered: new Map(),
  };
}

/** How full the journal is toward a checkpoint: 1 once it reaches either limit, bytes or records. */
export function journalShare(disk: Disk): number {
  return Math.max(disk.journal.recordBytes / disk.checkpointBytes, disk.journal.records / disk.checkpointRecords);
}

/**
 * Creates `foreman.journal.next` with its statement table (journalFormat.ts): the current segment's,
 * then the statements it wrote as text more than once. It holds no record yet (else appends would go
 * to it), so it is written anew.
 */
export function createNextSegment(disk: Disk): void {
  disk.fileStep(`create ${nextJournalName}`);
  JournalWriter.createSegment(path.join(disk.dir, nextJournalName), nextStatements(disk.journal.table, disk.unnumbered));
}

/**
 * Exports to an fsync'd `foreman.db.tmp`, with the journal seq it includes recorded in it, and
 * the mark that from now on `foreman.ack` must exist beside it.
 */
export function writeTempImage(dir: string, connection: Connection, journalSeq: number, fileStep: FileStep = () => undefined): number {
  const image = snapshotImage(connection, journalSeq);
  const tempPath = path.join(dir, tempImageName);
  try {
    // A fresh file, never one a checkpoint in the background may still have writes queued for.
    fs.rmSync(tempPath, { force: true });
    writeImageFile(tempPath, image, fileStep);
    return image.length;
  } catch (error) {
    // Nothing has moved yet: the image and journal on disk are intact, and the store goes on.
    fs.rmSync(tempPath, { force: true });
    throw error;
  }
}

/**
 * The database's bytes with the journal seq they include recorded in them, and the mark that from
 * now on `foreman.ack` must exist beside them. The only part of a checkpoint that needs the
 * database, and the only one that stops the owner: sql.js copies its pages synchronously.
 */
export function snapshotImage(connection: Connection, journalSeq: number): Uint8Array {
  const upsert = `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
  connection.run(upsert, ['journal_seq', String(journalSeq)]);
  connection.run(upsert, [ackRequiredKey, '1']);
  return connection.export();
}

export function writeFirstImage(dir: string, connection: Connection): void {
  writeTempImage(dir, connection, 0);
  fs.renameSync(path.join(dir, tempImageName), path.join(dir, imageName));
  fsyncDirectory(dir);
}

/**
 * Appends a transaction's record; returns where it starts in the journal. A failed append is cut
 * back by the journal and thrown as `appendFailure`'s error: the write fails, the store does not,
 * unless the cut failed too (`broken`). Saving's problem (a full disk) is reported when it starts
 * and when it ends.
 */
export function appendRecord(disk: Disk, record: Buffer, durable: boolean): number {
  const start = disk.journal.size;
  try {
    disk.journal.append(record, durable);
  } catch (error) {
    const failure = appendFailure(disk.journal.path, error);
    if (failure.code === 'notSaved' && disk.savingProblem === undefined) reportSaving(disk, failure.message);
    throw failure;
  }
  reportSaving(disk, undefined);
  return start;
}

/** Says when saving starts or stops failing (a full disk, then space again); once per change. */
function reportSaving(disk: Disk, problem: string | undefined): void {
  if (disk.savingProblem === problem) return;
  disk.savingProblem = problem;
  disk.onSavingChange(problem);
}

/**
 * The error for a journal append that failed. Cut back (JournalWriter.append), it cost this one
 * write only: `notSaved`. Not cut back, the journal may end in garbage: `broken`.
 */
function appendFailure(journalPath: string, error: unknown): StoreError {
  if (error instanceof JournalSyncFailed) return outcomeUnknown(error);
  if (error instanceof JournalCutFailed) {
    return new StoreError(
      'broken',
      `A write was not saved, and ${journalPath} could not be restored after the failed append (${String(error.appendError)}). ` +
        'The store is closed for further use; reopen it to continue from the last saved write.',
      { cause: error },
    );
  }
  return new StoreError('notSaved', notSavedMessage(journalPath, error), { cause: error });
}

/**
 * The error for writes whose fsync failed: they may be on disk or not, so the answer says neither
 * "done" nor "not done" but what to do (look, then repeat only what is missing).
 */
export function outcomeUnknown(error: JournalSyncFailed): StoreError {
  return new StoreError(
    'outcomeUnknown',
    `Foreman cannot tell whether this change was saved: ${error.message}. It may or may not be recorded; ` +
      'look (foreman status, foreman history <id>) before repeating it. The store takes no more writes until it is reopened from disk.',
    { cause: error },
  );
}

/** Why a write failed though the store is fine: most often a full disk, said in words that say what to do. */
function notSavedMessage(journalPath: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOSPC' || code === 'EDQUOT'
      ? `the disk holding ${path.dirname(journalPath)} is full (${code})`
      : `appending to ${journalPath} failed (${String(error)})`;
  return `This change was not saved: ${why}. Nothing was half written and Foreman goes on; free some space and try again.`;
}
