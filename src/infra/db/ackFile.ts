/**
 * `.foreman/foreman.ack`: the high-water mark of acknowledged writes, kept outside the journal.
 *
 * Why a second place: the journal alone cannot tell "emptied, deleted or cut at a record boundary"
 * from "nothing more was written". The image records the seq it includes (meta `journal_seq`), but
 * only at checkpoints. So every journal record's seq that has been fsync'd is also written here,
 * and the loader refuses a store whose image plus journals end before this mark.
 *
 * Cost: one 17-byte `pwrite` at offset 0 of an already open file after each journal fsync, and no
 * fsync of its own. That is enough, because the mark only has to be *no higher* than what the
 * journal holds durably, and it is:
 *  - it is written after the journal's fsync returned, so it never names a record that is not on disk;
 *  - a process crash (SIGKILL) loses nothing written to the page cache, so after a kill the mark is exact;
 *  - an OS crash or power loss may lose the mark's last update; then it lags the journal, which costs
 *    detection power for those last records but never refuses a good store.
 * The file keeps its size, so an overwrite in place never needs new blocks (no ENOSPC) and is one
 * sector (atomic on power loss). It is created (fsync'd, then renamed into place) before the first
 * image of a store exists.
 *
 * Format: the seq in decimal, zero-padded to 16 digits, and a newline. A person may write a plain
 * number into it (`echo 57 > .foreman/foreman.ack`) to accept a store that lost writes after 57.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fsyncDirectory } from './storeFiles';

export const ackName = 'foreman.ack';

/** What the file says: a seq, no file, or text that is not a seq. */
export type AckRead =
  | {
      readonly kind: 'seq';
      readonly seq: number;
      /** Exactly as Foreman writes it (not typed in by a person). */ readonly canonical: boolean;
    }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly text: string };

function encode(seq: number): Buffer {
  return Buffer.from(`${String(seq).padStart(16, '0')}\n`, 'latin1');
}

export function readAckFile(dir: string): AckRead {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, ackName), 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  const trimmed = text.trim();
  return /^\d{1,16}$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))
    ? { kind: 'seq', seq: Number(trimmed), canonical: text === encode(Number(trimmed)).toString('latin1') }
    : { kind: 'unreadable', text: trimmed.slice(0, 40) };
}

/** The open mark of a store; `record` only ever raises it. */
export class AckFile {
  private constructor(
    private fd: number | undefined,
    private seq: number,
  ) {}

  /**
   * Opens the mark at `seq`. Unless the file already says exactly that (`current`, as read), it is
   * replaced whole (a person may have typed a short number) through an fsync'd temp file and a
   * rename, so that a kill at any point leaves the old mark or the new one, never an empty file:
   * at most once per open, never per write.
   */
  static open(dir: string, seq: number, current: AckRead): AckFile {
    const file = path.join(dir, ackName);
    if (!(current.kind === 'seq' && current.canonical && current.seq === seq)) {
      const temp = `${file}.tmp`;
      const fd = fs.openSync(temp, 'w', 0o600);
      try {
        fs.fchmodSync(fd, 0o600);
        fs.writeSync(fd, encode(seq), 0, 17, 0);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, file);
      fsyncDirectory(dir);
    }
    return new AckFile(fs.openSync(file, 'r+'), seq);
  }

  /**
   * `record`, with a failure handed to `failed` rather than thrown: the write itself is durable,
   * and a lagging mark is safe.
   */
  raise(seq: number, failed: (error: unknown) => void): void {
    try {
      this.record(seq);
    } catch (error) {
      failed(error);
    }
  }

  /** Raises the mark to `seq`, which the journal has fsync'd. */
  record(seq: number): void {
    if (seq <= this.seq || this.fd === undefined) return;
    fs.writeSync(this.fd, encode(seq), 0, 17, 0);
    this.seq = seq;
  }

  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    fs.closeSync(fd);
  }
}
