/**
 * The store's replica, on a worker thread (replica.ts starts it): a second sql.js database that
 * loads the image on disk, replays the journal up to the seq it was started at, then applies every
 * committed record the owner sends it, in order. When a checkpoint asks, it exports its copy, so
 * the owner's thread never pays sql.js's synchronous `export()`.
 *
 * It never writes a file. Anything unexpected (a gap in the seqs, a statement that fails, a seq
 * asked for that it does not hold) ends it with `failed`; the owner then exports itself, as before.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Connection } from './connection';
import { readImageFile } from './imageFile';
import { type JournalRecord, type StatementTable, decodeHeaderAt, decodeRecordAt, noStatements, scanJournal } from './journalFormat';
import { migrations } from './migrations/index';
import type { ReplicaReply, ReplicaRequest, ReplicaStart } from './replicaProtocol';
import { snapshotImage } from './storeDisk';
import { imageName, journalName, nextJournalName } from './storeFiles';
import { configure, replay } from './storeLoader';
import { loadSqlJs } from './sqlJsModule';

const port = parentPort;
/** Records kept before they are applied together, in one transaction (storeLoader.ts `replay`). */
const recordsPerBatch = 500;
if (!port) throw new Error('replicaWorker.ts runs on a worker thread (replica.ts starts it).');

function send(reply: ReplicaReply, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(reply, transfer);
}

/** The journal records on disk after `fromSeq` and up to `toSeq`, from both segments, in seq order. */
function recordsOnDisk(dir: string, fromSeq: number, toSeq: number): JournalRecord[] {
  const records: JournalRecord[] = [];
  for (const name of [journalName, nextJournalName]) {
    const bytes = readIfThere(path.join(dir, name));
    for (const record of scanJournal(bytes).records) if (record.seq > fromSeq && record.seq <= toSeq) records.push(record);
  }
  return records.sort((a, b) => a.seq - b.seq);
}

/** A file's bytes; none when it is not there. */
function readIfThere(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
}

class Replica {
  private lastSeq: number;
  /** Records received and not yet applied. */
  private pending: JournalRecord[] = [];

  private constructor(
    private readonly connection: Connection,
    seq: number,
    /** The statement table of the segment the owner appends to (journalFormat.ts). */
    private table: StatementTable,
  ) {
    this.lastSeq = seq;
  }

  /** The image on disk plus the journal up to `baseSeq`: what the owner held when it started this. */
  static async load(start: ReplicaStart): Promise<Replica> {
    const SQL = await loadSqlJs();
    const read = readImageFile(path.join(start.dir, imageName));
    if (read.kind === 'damaged') throw new Error(`${imageName}: ${read.reason}`);
    const connection = new Connection(new SQL.Database(read.loadable));
    try {
      configure(connection);
      const imageSeq = Number(connection.get<{ value: string }>(`SELECT value FROM meta WHERE key = 'journal_seq'`)?.value ?? Number.NaN);
      if (!Number.isSafeInteger(imageSeq)) throw new Error(`${imageName} does not say which journal seq it includes`);
      const records = recordsOnDisk(start.dir, imageSeq, start.baseSeq);
      // An image newer than the start (a checkpoint installed meanwhile) needs no journal at all.
      const expected = Math.max(0, start.baseSeq - imageSeq);
      if (records.length !== expected || records.some((record, index) => record.seq !== imageSeq + index + 1)) {
        throw new Error(`the journals on disk do not hold seq ${imageSeq + 1} to ${start.baseSeq}`);
      }
      // The owner appends to foreman.journal when it starts a replica (checkpointScheduler.ts).
      const table = decodeHeaderAt(readIfThere(path.join(start.dir, journalName)), 0)?.table ?? noStatements;
      return new Replica(connection, replay(connection, records, imageSeq, migrations), table);
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  get seq(): number {
    return this.lastSeq;
  }

  /**
   * Keeps a record until enough have come to apply them together: a commit writes every page it
   * dirtied, so one transaction per record made the replica cost as much CPU as the owner's own
   * writes; in batches it costs about a third of that. An image request applies the rest first.
   */
  receive(record: JournalRecord): void {
    this.pending.push(record);
    if (this.pending.length >= recordsPerBatch) this.flush();
  }

  /** Records as the journal holds them, one after another; throws on bytes that are not whole records. */
  receiveBytes(bytes: Uint8Array): void {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let offset = 0; offset < buffer.length;) {
      // A rotation: the owner sends the new segment's header before its first record.
      const header = decodeHeaderAt(buffer, offset);
      if (header) {
        if (this.table.statements.some((sql, index) => header.table.statements[index] !== sql)) {
          throw new Error('a segment header renumbered statements');
        }
        this.table = header.table;
        offset = header.end;
        continue;
      }
      const decoded = decodeRecordAt(buffer, offset, this.table);
      if (!decoded) throw new Error(`a message of records held bytes that are not a record at offset ${offset}`);
      this.receive(decoded.record);
      offset = decoded.end;
    }
  }

  /** Applies what was received; throws on a gap, so a replica never skips a write. */
  flush(): void {
    const records = this.pending.filter((record) => record.seq > this.lastSeq);
    this.pending = [];
    if (records.length === 0) return;
    records.forEach((record, index) => {
      if (record.seq !== this.lastSeq + index + 1) throw new Error(`record ${this.lastSeq + index + 1} never arrived (got ${record.seq})`);
    });
    this.lastSeq = replay(this.connection, records, this.lastSeq, migrations);
  }

  /** The image at `seq`, as the owner's own export would have made it. */
  image(seq: number): Uint8Array {
    this.flush();
    if (this.lastSeq !== seq) throw new Error(`asked for the image at seq ${seq}, but the replica holds seq ${this.lastSeq}`);
    return snapshotImage(this.connection, seq);
  }
}

async function main(): Promise<void> {
  const start = workerData as ReplicaStart;
  let replica: Replica | undefined;
  const early: ReplicaRequest[] = [];
  const handle = (request: ReplicaRequest): void => {
    if (!replica) {
      early.push(request);
      return;
    }
    try {
      if (request.kind === 'records') replica.receiveBytes(request.bytes);
      else {
        const bytes = replica.image(request.seq);
        // Hashed here for the image file's trailer: ~250 ms for a 280 MiB image (1M tasks), which
        // the owner's thread would otherwise pay per checkpoint.
        const sha256 = crypto.createHash('sha256').update(bytes).digest();
        // Handed over, not copied: the export is the replica's own fresh buffer.
        send({ kind: 'image', id: request.id, seq: request.seq, bytes, sha256 }, [bytes.buffer as ArrayBuffer]);
      }
    } catch (error) {
      fail(error);
    }
  };
  port?.on('message', handle);
  try {
    replica = await Replica.load(start);
  } catch (error) {
    fail(error);
    return;
  }
  for (const request of early.splice(0)) handle(request);
  send({ kind: 'ready', seq: replica.seq });
}

function fail(error: unknown): void {
  send({ kind: 'failed', reason: error instanceof Error ? error.message : String(error) });
  port?.close();
}

void main();
