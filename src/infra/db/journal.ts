/**
 * The redo journal (ARCHITECTURE §2): records (journalFormat.ts) appended to one file, and
 * fsync'd before the transaction they hold is acknowledged.
 */
import * as fs from 'node:fs';
import { type JournalRecord, type StatementTable, decodeHeaderAt, encodeHeader, encodeRecord, noStatements } from './journalFormat';

/** A failed append whose partial record could not be removed: the journal may now end in garbage. */
export class JournalCutFailed extends Error {
  constructor(
    readonly journalPath: string,
    readonly appendError: unknown,
    options: { cause: unknown },
  ) {
    super(`${journalPath}: a failed append (${String(appendError)}) could not be cut back (${String(options.cause)})`, options);
    this.name = 'JournalCutFailed';
  }
}

/**
 * An fsync of the journal failed. What it was to save may or may not be on disk (after a failed
 * fsync the kernel may have dropped the pages or written them; a later fsync can even succeed
 * without them), so nothing built on it can be told "done" or "not done": PostgreSQL and SQLite
 * treat it as fatal, and so does the store (sqlJsStore.ts).
 */
export class JournalSyncFailed extends Error {
  constructor(
    readonly journalPath: string,
    options: { cause: unknown },
  ) {
    super(`fsync of ${journalPath} failed (${String(options.cause)})`, options);
    this.name = 'JournalSyncFailed';
  }
}

/** Appends records to one journal file; the caller decides when to fsync. */
export class JournalWriter {
  private fd: number | undefined;
  /** Bytes known to be on disk (an fsync covering them returned). */
  private syncedBytes: number;
  /** fsyncs running on the thread pool; the descriptor is closed only once they are done. */
  private syncsInFlight = 0;
  private closeWhenIdle = false;

  private constructor(
    private filePath: string,
    fd: number,
    private bytes: number,
    /** The segment's statement table, from its header (journalFormat.ts): how its records are encoded. */
    readonly table: StatementTable,
    private readonly headerBytes: number,
    private recordCount: number,
  ) {
    this.fd = fd;
    this.syncedBytes = bytes;
  }

  /** Encodes a record for this segment, counting in `unnumbered` the statements its table lacks. */
  encode(record: JournalRecord, unnumbered?: Map<string, number>): Buffer {
    return encodeRecord(record, this.table, unnumbered);
  }

  /** Where the file is now (a checkpoint renames the segment it appends to). */
  get path(): string {
    return this.filePath;
  }

  /** Records that the open file was renamed: appends go on through the same descriptor. */
  movedTo(newPath: string): void {
    this.filePath = newPath;
  }

  /**
   * Opens (creating if needed) for appending; `validBytes` cuts off a torn tail first. The segment's
   * table is read from its header; a segment without one encodes every statement as text.
   */
  static open(path: string, validBytes?: number, records = 0): JournalWriter {
    const fd = fs.openSync(path, 'a+', 0o600);
    try {
      const size = fs.fstatSync(fd).size;
      if (validBytes !== undefined && validBytes < size) {
        fs.ftruncateSync(fd, validBytes);
        fs.fsyncSync(fd);
      }
      const bytes = Math.min(size, validBytes ?? size);
      const header = readHeader(fd, bytes);
      return new JournalWriter(path, fd, bytes, header?.table ?? noStatements, header?.end ?? 0, records);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /**
   * Creates (or empties) a segment that begins with a header holding `statements`. Its fsync comes
   * with the first record's: nothing in the segment is acknowledged before an fsync covering both.
   */
  static createSegment(path: string, statements: readonly string[]): void {
    fs.writeFileSync(path, encodeHeader(statements), { mode: 0o600 });
  }

  /** Bytes in the file, including records not yet fsync'd. */
  get size(): number {
    return this.bytes;
  }

  /** Records in the segment: those it held when opened (`records` of `open`), and those appended since. */
  get records(): number {
    return this.recordCount;
  }

  /** Bytes of records in the file: its size without the segment's header. */
  get recordBytes(): number {
    return this.bytes - this.headerBytes;
  }

  /**
   * Appends one record (`encodeRecord`'s bytes), fsync'd when `durable`. If the write fails (a full
   * disk), the file is cut back to where the record began, so no partial record is left for later
   * appends to follow (they would read as damage), and the error is rethrown: the record is not in
   * the journal. Only when even that cut fails is the error a `JournalCutFailed`. If the fsync
   * fails, nobody can say whether the record is on disk: `JournalSyncFailed`, and the record stays
   * (the next open replays it if it is there, or drops it as a torn tail if it is not).
   */
  append(buffer: Buffer, durable: boolean): void {
    const fd = this.openFd();
    const start = this.bytes;
    try {
      let written = 0;
      while (written < buffer.length) written += fs.writeSync(fd, buffer, written, buffer.length - written);
    } catch (error) {
      this.cutBack(fd, start, error);
      throw error;
    }
    this.bytes += buffer.length;
    this.recordCount++;
    if (durable) this.sync();
  }

  /** Removes the last record appended (never acknowledged: its commit failed after the append). */
  removeLast(recordStart: number): void {
    const fd = this.openFd();
    this.cutBack(fd, recordStart, undefined);
    this.bytes = recordStart;
    this.recordCount--;
  }

  private cutBack(fd: number, size: number, cause: unknown): void {
    try {
      fs.ftruncateSync(fd, size);
      fs.fsyncSync(fd);
    } catch (cutError) {
      throw new JournalCutFailed(this.path, cause ?? cutError, { cause: cutError });
    }
    // The fsync after the cut made everything before it durable, and nothing after it exists.
    this.syncedBytes = size;
  }

  /** Whether records were appended that no fsync has covered yet. */
  get unsynced(): boolean {
    return this.bytes > this.syncedBytes;
  }

  /** Makes every appended record durable, including earlier non-durable ones; `JournalSyncFailed` if it cannot. */
  sync(): void {
    if (!this.unsynced) return;
    const fd = this.openFd();
    const upTo = this.bytes;
    try {
      fs.fsyncSync(fd);
    } catch (error) {
      throw new JournalSyncFailed(this.path, { cause: error });
    }
    this.syncedBytes = Math.max(this.syncedBytes, upTo);
  }

  /**
   * `sync` on the thread pool (the group save: the owner's thread answers other requests while the
   * disk works). Covers what was appended when it was called; rejects with `JournalSyncFailed`.
   */
  syncAsync(): Promise<void> {
    if (!this.unsynced) return Promise.resolve();
    const fd = this.openFd();
    const upTo = this.bytes;
    this.syncsInFlight++;
    return new Promise<void>((resolve, reject) => {
      fs.fsync(fd, (error) => {
        this.syncsInFlight--;
        if (this.closeWhenIdle && this.syncsInFlight === 0) this.closeNow(fd);
        if (error) {
          reject(new JournalSyncFailed(this.path, { cause: error }));
          return;
        }
        this.syncedBytes = Math.max(this.syncedBytes, upTo);
        resolve();
      });
    });
  }

  /** Closes the file; with an fsync still on the thread pool, once it returns (never a reused descriptor). */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    if (this.syncsInFlight > 0) this.closeWhenIdle = true;
    else fs.closeSync(fd);
  }

  private closeNow(fd: number): void {
    this.closeWhenIdle = false;
    try {
      fs.closeSync(fd);
    } catch {
      // Called from an fsync's callback: nothing is left to do with a descriptor that would not close.
    }
  }

  private openFd(): number {
    if (this.fd === undefined) throw new Error(`journal ${this.path} is closed`);
    return this.fd;
  }
}

/** The header at the start of a segment's first `size` bytes, if it begins with one. */
function readHeader(fd: number, size: number): ReturnType<typeof decodeHeaderAt> {
  if (size < 8) return undefined;
  const length = Buffer.alloc(4);
  fs.readSync(fd, length, 0, 4, 0);
  const whole = 8 + length.readUInt32LE(0);
  if (whole > size) return undefined;
  const bytes = Buffer.alloc(whole);
  fs.readSync(fd, bytes, 0, whole, 0);
  return decodeHeaderAt(bytes, 0);
}
