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
 *
 * Deleted or replaced while the store is open (`rm`, an editor's save): each raise first checks that
 * the path still names the file it holds open (one stat, next to an fsync), and if not writes the
 * mark anew there, as `open` does, and says so. The owner knows exactly what it acknowledged, so the
 * new file is as true as the old; left alone, the next open would refuse the store for a missing mark.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StoreError } from './storeError';
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

/** What a non-file is called in messages. */
function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a named pipe';
  if (stat.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * Reads the mark. Something at the path that is not a file (a directory made by mistake) cannot be
 * read, nor replaced without losing what a person put there: refused as damage, naming it and what
 * to do (a FIFO is never opened, since reading one would block).
 */
export function readAckFile(dir: string): AckRead {
  const file = path.join(dir, ackName);
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat === undefined) return { kind: 'missing' };
  if (!stat.isFile()) {
    throw new StoreError(
      'damaged',
      `${file} is ${kindOf(stat)}, but Foreman keeps its acknowledged mark there (a file holding a seq), so it cannot tell ` +
        `whether the journal holds every acknowledged write. Nothing was changed. Move it out of the way (mv ${file} ` +
        `${file}.aside) and run the command again: Foreman then says which seq the store reaches and how to accept it.`,
    );
  }
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  const trimmed = text.trim();
  return /^\d{1,16}$/.test(trimmed) && Number.isSafeInteger(Number(trimmed))
    ? { kind: 'seq', seq: Number(trimmed), canonical: text === encode(Number(trimmed)).toString('latin1') }
    : { kind: 'unreadable', text: trimmed.slice(0, 40) };
}

/**
 * Puts the mark at `seq` in place whole, through an fsync'd temp file and a rename, so that a kill at
 * any point leaves the old mark or the new one, never an empty file; returns it opened for raising.
 */
function replaceMark(dir: string, seq: number): number {
  const file = path.join(dir, ackName);
  const temp = `${file}.tmp`;
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, encode(seq), 0, 17, 0);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(dir);
  return fs.openSync(file, 'r+');
}

/** Which file (or folder) a stat names. */
interface Identity {
  readonly dev: number;
  readonly ino: number;
}

const same = (a: Identity | undefined, b: Identity): boolean => a !== undefined && a.dev === b.dev && a.ino === b.ino;

/** The file an open fd holds, and the folder it was opened in, to tell whether the path still names it. */
interface Held {
  readonly fd: number;
  readonly file: Identity;
  readonly folder: Identity;
}

const identityOf = (stat: fs.Stats): Identity => ({ dev: stat.dev, ino: stat.ino });

function hold(dir: string, fd: number): Held {
  return { fd, file: identityOf(fs.fstatSync(fd)), folder: identityOf(fs.statSync(dir)) };
}

/** The open mark of a store; `record` only ever raises it. */
export class AckFile {
  private constructor(
    private readonly dir: string,
    private held: Held | undefined,
    private seq: number,
  ) {}

  /**
   * Opens the mark at `seq`. Unless the file already says exactly that (`current`, as read), it is
   * replaced whole (a person may have typed a short number): at most once per open, never per write.
   */
  static open(dir: string, seq: number, current: AckRead): AckFile {
    const upToDate = current.kind === 'seq' && current.canonical && current.seq === seq;
    const fd = upToDate ? fs.openSync(path.join(dir, ackName), 'r+') : replaceMark(dir, seq);
    return new AckFile(dir, hold(dir, fd), seq);
  }

  /**
   * `record`, with a failure handed to `failed` rather than thrown: the write itself is durable,
   * and a lagging mark is safe. `noticed` hears that the file had been deleted or replaced and was
   * written again (a line for the owner's log); without it, that is said through `failed`.
   */
  raise(seq: number, failed: (error: unknown) => void, noticed?: (line: string) => void): void {
    try {
      const rewritten = this.record(seq);
      if (rewritten === undefined) return;
      if (noticed) noticed(rewritten);
      else failed(new Error(rewritten));
    } catch (error) {
      failed(error);
    }
  }

  /**
   * Raises the mark to `seq`, which the journal has fsync'd. Returns what happened when the file
   * had been deleted or replaced under it and was written again; undefined otherwise.
   */
  record(seq: number): string | undefined {
    if (seq <= this.seq || this.held === undefined) return undefined;
    const file = path.join(this.dir, ackName);
    const now = fs.statSync(file, { throwIfNoEntry: false });
    // The folder itself moved (`mv` of the repository): the mark moved with it, and stays the one to raise.
    if (same(now, this.held.file) || !same(fs.statSync(this.dir, { throwIfNoEntry: false }), this.held.folder)) {
      fs.writeSync(this.held.fd, encode(seq), 0, 17, 0);
      this.seq = seq;
      return undefined;
    }
    const fd = replaceMark(this.dir, seq);
    fs.closeSync(this.held.fd);
    this.held = hold(this.dir, fd);
    this.seq = seq;
    const what = now === undefined ? 'was deleted' : 'was replaced by another file';
    return `${file} ${what} while the store was open; Foreman wrote it again at seq ${seq}, the last write it acknowledged.`;
  }

  close(): void {
    if (this.held === undefined) return;
    const { fd } = this.held;
    this.held = undefined;
    fs.closeSync(fd);
  }
}
