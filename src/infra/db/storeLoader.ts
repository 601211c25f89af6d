/**
 * Rebuilds the database from the files in `.foreman/`: the newest image that is intact and that the
 * journals cover, plus replay of every journal record newer than it (ARCHITECTURE §2).
 *
 * The loader only reads. The store applies what it decides (cutting a torn tail, keeping a damaged
 * image aside, checkpointing) once loading has succeeded, so a refusal leaves the files untouched.
 */
import type { SqlJsStatic } from 'sql.js';
import { Connection } from './connection';
import { assertAcknowledged } from './acknowledged';
import type { AckRead } from './ackFile';
import { readImageFile } from './imageFile';
import type { JournalRecord, StatementTable } from './journalFormat';
import { JournalSet } from './journalSet';
import { applyMigrations, assertKnownVersion, latestVersion, schemaVersionOf } from './migrator';
import type { Migration } from './migrations/index';
import { StoreError } from './storeError';
import type { GenerationFile, StoreFiles, journalName, nextJournalName } from './storeFiles';

export interface LoadedDatabase {
  readonly connection: Connection;
  /** The newest journal seq the database now includes. */
  readonly lastSeq: number;
  /** The image loaded, or undefined when rebuilt from the journals alone. */
  readonly image: GenerationFile | undefined;
  /** The segment to append to: `foreman.journal`, or `foreman.journal.next` after an interrupted checkpoint. */
  readonly activeJournal: typeof journalName | typeof nextJournalName;
  /** Where the active journal's intact records end, when a torn tail follows them. */
  readonly currentJournalValidBytes: number | undefined;
  /** How many bytes of the current journal were read and replayed (undefined when it was not read). */
  readonly currentJournalReadBytes: number | undefined;
  /** The current journal's statement table (journalFormat.ts), for records appended after those read. */
  readonly currentJournalTable: StatementTable | undefined;
  /** The records the current journal holds (0 when it was not read). */
  readonly currentJournalRecords: number;
  /** True when anything but a clean `foreman.db` plus clean journals was needed. */
  readonly recovered: boolean;
  /** False for an image written before `foreman.ack` existed: the store checkpoints to upgrade it. */
  readonly ackRequired: boolean;
}

/** The meta key an image carries once its store keeps `foreman.ack`; from then on the file must exist. */
export const ackRequiredKey = 'ack_file';

/**
 * Sets the connection pragmas; they are per connection and do not come with the image.
 * `locking_mode = EXCLUSIVE`: the file lives in sql.js's memory and nothing else opens it, so the
 * connection keeps its lock instead of taking it again for every statement outside a transaction,
 * which costs ~22 µs each in sql.js (the hot-journal check asks its file system for a journal that
 * is not there): a one-row read went from ~26 to ~1 µs (issue 13).
 */
export function configure(connection: Connection): void {
  connection.exec('PRAGMA journal_mode = MEMORY; PRAGMA locking_mode = EXCLUSIVE; PRAGMA foreign_keys = ON;');
}

/**
 * Puts the database in auto_vacuum=INCREMENTAL, so pages retention frees can be given back
 * (`PRAGMA incremental_vacuum`) and the image shrinks as history leaves. A database made before
 * this is rewritten once by VACUUM, at open, before any request; true when that happened.
 */
export function useIncrementalVacuum(connection: Connection): boolean {
  if (connection.scalar('PRAGMA auto_vacuum') === 2) return false;
  connection.exec('PRAGMA auto_vacuum = INCREMENTAL; VACUUM;');
  return true;
}

/** Opens one image and checks it; returns the reason it cannot be used instead of throwing. */
function openImage(SQL: SqlJsStatic, file: GenerationFile): { connection: Connection; journalSeq: number; ackRequired: boolean } | string {
  const read = readImageFile(file.path);
  if (read.kind === 'damaged') return read.reason;
  let connection: Connection | undefined;
  try {
    connection = new Connection(new SQL.Database(read.loadable));
    // A checksummed image is byte for byte what sql.js exported. Any other (written by hand or by
    // another tool) gets SQLite's full integrity check: slow, but rare, and the best evidence there is.
    if (!read.checksummed) {
      const check = connection.all<{ integrity_check: string }>('PRAGMA integrity_check');
      if (check.length !== 1 || check[0]?.integrity_check !== 'ok') {
        connection.close();
        return `its integrity check failed (${check
          .slice(0, 3)
          .map((row) => row.integrity_check)
          .join('; ')})`;
      }
    }
    const seq =
      schemaVersionOf(connection) > 0 ? connection.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'journal_seq'`) : undefined;
    if (!seq || !/^\d+$/.test(seq.value)) {
      connection.close();
      return 'its meta table (schema_version, journal_seq) is missing';
    }
    const ackRequired = connection.get<{ value: string }>(`SELECT value FROM meta WHERE key = '${ackRequiredKey}'`)?.value === '1';
    return { connection, journalSeq: Number(seq.value), ackRequired };
  } catch (error) {
    connection?.close();
    return `SQLite cannot read it (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The first seq after `fromSeq` missing from `records` (sorted), or undefined if none is. */
function firstGap(records: readonly JournalRecord[], fromSeq: number): number | undefined {
  let expected = fromSeq + 1;
  for (const record of records) {
    if (record.seq < expected) continue;
    if (record.seq !== expected) return expected;
    expected++;
  }
  return undefined;
}

/**
 * Replays records newer than `fromSeq`, migrating when a record says so. The records are applied in
 * one transaction (one between migrations): each was committed whole, so the end state is the same,
 * and a commit writes every page it dirtied, so one commit instead of one per 500 records took a
 * fifth off a full journal's replay (issue 34). SQLite keeps no rollback journal meanwhile: a
 * failure anywhere fails the load (or the replica), and the caller drops the connection, never
 * using a half-replayed database, so there is nothing to roll back to.
 */
export function replay(
  connection: Connection,
  records: readonly JournalRecord[],
  fromSeq: number,
  migrations: readonly Migration[],
): number {
  let lastSeq = fromSeq;
  // Asked once, then followed: a query per record was a third of the replay's time (issue 13).
  let schema = schemaVersionOf(connection);
  let open = false;
  const commit = (): void => {
    if (!open) return;
    connection.exec('COMMIT');
    open = false;
  };
  const mode = connection.scalar('PRAGMA journal_mode');
  const restore = `PRAGMA journal_mode = ${typeof mode === 'string' && /^[a-z]+$/i.test(mode) ? mode : 'MEMORY'}`;
  connection.exec('PRAGMA journal_mode = OFF');
  for (const record of records) {
    if (record.seq <= fromSeq) continue;
    if (record.schema !== undefined && record.schema > schema) {
      commit();
      assertKnownVersion(record.schema, migrations, `journal record ${record.seq}`);
      // A migration rolls back when it fails: that needs the rollback journal.
      connection.exec(restore);
      applyMigrations(connection, migrations, record.schema);
      connection.exec('PRAGMA journal_mode = OFF');
      schema = record.schema;
    }
    if (!open) connection.exec('BEGIN');
    open = true;
    try {
      for (const [sql, params] of record.stmts) connection.run(sql, params);
    } catch (error) {
      throw new Error(`replaying journal record ${record.seq} failed: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
    lastSeq = record.seq;
  }
  commit();
  connection.exec(restore);
  return lastSeq;
}

export function loadDatabase(
  SQL: SqlJsStatic,
  dir: string,
  files: StoreFiles,
  migrations: readonly Migration[],
  log: (line: string) => void,
  ack: AckRead,
): LoadedDatabase {
  const journals = new JournalSet(files.journals, dir, log);
  const problems: string[] = [];
  if (!files.images.some((image) => image.generation === 0)) problems.push(`foreman.db: it is missing`);

  for (const image of files.images) {
    const opened = openImage(SQL, image);
    if (typeof opened === 'string') {
      problems.push(`${image.name}: ${opened}`);
      continue;
    }
    let view = journals.view(image.generation !== 0);
    if (image.generation === 0 && firstGap(view.records, opened.journalSeq) !== undefined) view = journals.view(true);
    const gap = firstGap(view.records, opened.journalSeq);
    if (gap !== undefined) {
      opened.connection.close();
      problems.push(
        `${image.name} includes the journal up to seq ${opened.journalSeq}, but seq ${gap} is missing from the journals${view.damage}`,
      );
      continue;
    }
    try {
      assertKnownVersion(schemaVersionOf(opened.connection), migrations, image.path);
      configure(opened.connection);
      const lastSeq = Math.max(opened.journalSeq, replay(opened.connection, view.records, opened.journalSeq, migrations));
      assertAcknowledged(dir, files, ack, opened.ackRequired, lastSeq, image.name, () => journals.describeCurrent());
      journals.logTornTails();
      if (problems.length || view.damage) {
        const reasons = problems.length
          ? problems.join('; ')
          : `the journals are partly unreadable${view.damage}, though every record is accounted for`;
        log(`Recovered from ${image.name} plus the journals up to seq ${lastSeq}, because ${reasons}.`);
      }
      const recovered = problems.length > 0 || image.generation !== 0 || view.damage !== '';
      return {
        connection: opened.connection,
        lastSeq,
        image,
        activeJournal: journals.activeName,
        currentJournalValidBytes: journals.currentValidBytes,
        currentJournalReadBytes: journals.currentReadBytes,
        currentJournalTable: journals.currentTable,
        currentJournalRecords: journals.currentRecords,
        recovered,
        ackRequired: opened.ackRequired,
      };
    } catch (error) {
      opened.connection.close();
      if (error instanceof StoreError) throw error;
      problems.push(`${image.name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  // Journals that reach back to seq 1 hold the whole history: rebuilding from nothing loses nothing.
  const { records } = journals.view(true);
  if (records[0]?.seq === 1 && firstGap(records, 0) === undefined) {
    const connection = new Connection(new SQL.Database());
    try {
      configure(connection);
      const schema = records[0].schema ?? latestVersion(migrations);
      assertKnownVersion(schema, migrations, `journal record 1`);
      applyMigrations(connection, migrations, schema);
      const lastSeq = replay(connection, records, 0, migrations);
      assertAcknowledged(dir, files, ack, false, lastSeq, 'the journals alone', () => journals.describeCurrent());
      journals.logTornTails();
      log(`Rebuilt the database from the journals (seq 1 to ${lastSeq}), because ${problems.join('; ')}.`);
      return {
        connection,
        lastSeq,
        image: undefined,
        activeJournal: journals.activeName,
        currentJournalValidBytes: journals.currentValidBytes,
        currentJournalReadBytes: journals.currentReadBytes,
        currentJournalTable: journals.currentTable,
        currentJournalRecords: journals.currentRecords,
        recovered: true,
        ackRequired: false,
      };
    } catch (error) {
      connection.close();
      if (error instanceof StoreError) throw error;
      problems.push(`rebuilding from the journals alone: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  throw new StoreError(
    'damaged',
    `The Foreman database in ${dir} is damaged and no backup plus journal covers every committed transaction: ` +
      `${problems.join('; ')}. Nothing was changed. Move the .foreman folder aside (Foreman then starts an empty ` +
      'database) or restore a backup of it.',
  );
}
