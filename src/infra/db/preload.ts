/**
 * Loading the store before taking the owner lock, so that a one-shot call holds the lock only for
 * its own transaction (issue 10): reading the image and replaying the journal can take hundreds of
 * milliseconds, and every other caller would wait through them.
 *
 * Without the lock the files may change under the reader: another process appends to the journal,
 * or checkpoints and rotates every file. So a preload is only a guess, checked under the lock:
 *   - every store file but the current journal must be the very file that was read (inode, size,
 *     modification time), and the current journal the same inode;
 *   - what was appended to the journal since is read from where the preload stopped, and must be
 *     intact records continuing the seqs exactly.
 * Anything else (a checkpoint in between, a recovery the load needed, damage) discards the preload
 * and the store loads under the lock as before, where every refusal is decided. The preload never
 * writes: recoveries are for the owner.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import type { AckRead } from './ackFile';
import { readAckFile } from './ackFile';
import { decodeHeaderAt, noStatements, scanJournal } from './journalFormat';
import { latestVersion, schemaVersionOf } from './migrator';
import type { Migration } from './migrations/index';
import type { LoadedDatabase } from './storeLoader';
import { loadDatabase, replay } from './storeLoader';
import { journalName, listStoreFiles, nextJournalName, tempImageName } from './storeFiles';
import type { StoreFiles } from './storeFiles';

/** A database loaded without the lock, with what it was loaded from. */
export interface PreloadedStore {
  readonly loaded: LoadedDatabase;
  readonly fingerprint: string;
  /** Bytes of the current journal the database includes: where catching up starts. */
  readonly journalBytes: number;
}

/** Identity of every store file: the current journal by inode alone, since it may only grow. */
function fingerprintOf(files: StoreFiles): string | undefined {
  const parts: string[] = [];
  try {
    for (const file of [...files.images, ...files.journals]) {
      const stat = fs.statSync(file.path, { bigint: true });
      const current = file.name === journalName;
      parts.push(current ? `${file.name}:${stat.ino}` : `${file.name}:${stat.ino}:${stat.size}:${stat.mtimeNs}`);
    }
  } catch {
    return undefined;
  }
  return parts.join('|');
}

/**
 * Loads the store in `dir` without the lock, or returns undefined when that is not a plain load: a
 * new folder, an interrupted checkpoint, a recovery, a pending migration, files changing meanwhile.
 */
export function preloadStore(SQL: SqlJsStatic, dir: string, migrations: readonly Migration[]): PreloadedStore | undefined {
  let loaded: LoadedDatabase | undefined;
  try {
    if (fs.existsSync(path.join(dir, tempImageName))) return undefined;
    // Records in foreman.journal.next: a checkpoint was interrupted; catching up reads only foreman.journal.
    if (holdsRecords(path.join(dir, nextJournalName))) return undefined;
    const files = listStoreFiles(dir);
    const before = fingerprintOf(files);
    if (!before || !files.images.some((image) => image.generation === 0)) return undefined;
    // Read before the journal: the mark only ever names records already fsync'd there (ackFile.ts).
    const ack = readAckFile(dir);
    loaded = loadDatabase(SQL, dir, files, migrations, () => undefined, ack);
    const plain =
      !loaded.recovered &&
      loaded.ackRequired &&
      loaded.currentJournalReadBytes !== undefined &&
      schemaVersionOf(loaded.connection) === latestVersion(migrations) &&
      fingerprintOf(listStoreFiles(dir)) === before;
    if (!plain || loaded.currentJournalReadBytes === undefined) {
      loaded.connection.close();
      return undefined;
    }
    return { loaded, fingerprint: before, journalBytes: loaded.currentJournalReadBytes };
  } catch {
    loaded?.connection.close();
    return undefined;
  }
}

/**
 * Under the lock: brings a preload up to date with what was appended to the journal since, or
 * returns undefined (and closes the preloaded database) when the files changed in any other way.
 */
export function catchUp(
  preloaded: PreloadedStore,
  dir: string,
  files: StoreFiles,
  ack: AckRead,
  migrations: readonly Migration[],
  log: (line: string) => void,
): LoadedDatabase | undefined {
  const { loaded } = preloaded;
  try {
    if (fingerprintOf(files) !== preloaded.fingerprint) throw new Error('the store files changed');
    const appended = readFrom(path.join(dir, journalName), preloaded.journalBytes);
    // Read from the middle of the segment: its records are numbered by the table at its start.
    const scan = scanJournal(appended, preloaded.loaded.currentJournalTable ?? noStatements);
    if (scan.damage.length > 0) throw new Error('the journal has damage');
    let lastSeq = loaded.lastSeq;
    for (const record of scan.records) {
      if (record.seq !== lastSeq + 1) throw new Error('the journal does not continue the preload');
      lastSeq = record.seq;
    }
    // A mark beyond what the journal holds is a refusal: the full load words it.
    if (ack.kind !== 'seq' || ack.seq > lastSeq) throw new Error('the acknowledged mark is not covered');
    replay(loaded.connection, scan.records, loaded.lastSeq, migrations);
    const torn = scan.tornTail;
    if (torn) {
      log(
        `${journalName}: ignoring an incomplete last record at byte offset ${preloaded.journalBytes + torn.offset} ` +
          `(${torn.length} bytes), left by an append that was interrupted and never acknowledged.`,
      );
    }
    return {
      ...loaded,
      lastSeq,
      currentJournalValidBytes: torn ? preloaded.journalBytes + scan.validBytes : undefined,
      currentJournalReadBytes: preloaded.journalBytes + scan.validBytes,
      currentJournalRecords: loaded.currentJournalRecords + scan.records.length,
    };
  } catch {
    loaded.connection.close();
    return undefined;
  }
}

/** Whether a journal segment holds anything but its header (journalFormat.ts); false when there is none. */
function holdsRecords(filePath: string): boolean {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  return bytes.length > (decodeHeaderAt(bytes, 0)?.end ?? 0);
}

/** The bytes of a file from `offset` to its end; throws when the file no longer reaches `offset`. */
function readFrom(filePath: string, offset: number): Buffer {
  const fd = fs.openSync(filePath, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size < offset) throw new Error(`${filePath} is shorter than it was`);
    const bytes = Buffer.alloc(Math.max(0, size - offset));
    let read = 0;
    while (read < bytes.length) {
      const got = fs.readSync(fd, bytes, read, bytes.length - read, offset + read);
      if (got === 0) break;
      read += got;
    }
    return bytes.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}
