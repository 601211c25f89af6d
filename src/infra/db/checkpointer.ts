/**
 * Checkpoints that do not stop the owner (issue 13). A checkpoint used to run inside the write that
 * crossed the journal limit: export, write, fsync and renames, 0.1–0.4 s at 100k tasks, with every
 * request waiting behind it. Now only two things happen on the owner's thread at once:
 *  - the rotation: later writes go to `foreman.journal.next`, a segment created (and its folder
 *    fsync'd) ahead of time, so the rotation touches no disk;
 *  - the export of the image at that seq (sql.js can only copy its database synchronously).
 * Writing the image (with its checksum) and every fsync happen on the thread pool, a chunk at a time,
 * while the owner goes on answering; the renames that install the image are microseconds each.
 *
 * Crash safety is the synchronous checkpoint's: the files on disk are always some intact image plus
 * journals holding every record after it (installSteps in storeFiles.ts). Until the image is whole
 * and fsync'd nothing moves; writes meanwhile land in the new segment, which the loader reads with
 * `foreman.journal` as generation 0.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { imageTrailer } from './imageFile';
import { JournalWriter } from './journal';
import { type Disk, createNextSegment } from './storeDisk';
import {
  fsyncDirectory,
  fsyncDirectoryAsync,
  generationName,
  imageName,
  installSteps,
  journalName,
  nextJournalName,
  runInstallSteps,
  tempImageName,
} from './storeFiles';
import type { InstallStep } from './storeFiles';

/** Bytes written per turn of the event loop: ~1 ms of copying, so a request waits at most that. */
const chunkBytes = 1024 * 1024;

/**
 * Makes sure `foreman.journal.next` exists and its name is durable, so that records appended to
 * it after a rotation survive a power loss. Synchronous: used when no segment was prepared ahead.
 */
function prepareNextSegmentNow(disk: Disk): void {
  createNextSegment(disk);
  disk.fileStep('fsync the folder');
  fsyncDirectory(disk.dir);
  disk.nextSegment = 'ready';
}

/**
 * Prepares the next segment in the background, once the journal is half way to a checkpoint: the
 * file is created at once (microseconds) and the folder fsync'd on the thread pool. A rotation
 * before that finishes prepares it synchronously instead; `epoch` tells a late finish to keep out.
 */
export function prepareNextSegment(disk: Disk, log: (line: string) => void): void {
  if (disk.nextSegment !== 'none' || disk.active !== journalName) return;
  const epoch = disk.epoch;
  disk.nextSegment = 'preparing';
  try {
    createNextSegment(disk);
    disk.fileStep('fsync the folder');
  } catch (error) {
    disk.nextSegment = 'none';
    log(`Preparing ${nextJournalName} in ${disk.dir} failed (${String(error)}); the checkpoint will create it.`);
    return;
  }
  fsyncDirectoryAsync(disk.dir).then(
    () => {
      if (disk.epoch === epoch && disk.nextSegment === 'preparing') disk.nextSegment = 'ready';
    },
    (error: unknown) => {
      if (disk.epoch === epoch && disk.nextSegment === 'preparing') disk.nextSegment = 'none';
      log(`Preparing ${nextJournalName} in ${disk.dir} failed (${String(error)}); the checkpoint will create it.`);
    },
  );
}

/**
 * Sends later writes to `foreman.journal.next`. Everything appended so far is fsync'd first by
 * `syncJournal` (which also raises the acknowledged mark). Once rotated (a checkpoint that failed
 * or was interrupted by a close), the store stays on the segment it has: the next image includes it.
 */
export function rotate(disk: Disk, syncJournal: () => void): void {
  disk.fileStep(`fsync ${disk.active}`);
  syncJournal();
  if (disk.active === nextJournalName) return;
  if (disk.nextSegment !== 'ready') prepareNextSegmentNow(disk);
  const next = JournalWriter.open(path.join(disk.dir, nextJournalName));
  disk.journal.close();
  disk.journal = next;
  disk.active = nextJournalName;
  disk.epoch++;
  disk.nextSegment = 'none';
}

/** After the last install step: the segment written to is `foreman.journal` again. */
export function installed(disk: Disk): void {
  disk.journal.movedTo(path.join(disk.dir, journalName));
  disk.active = journalName;
  disk.nextCheckpointAt = 1;
}

/** Runs the install steps at once. */
export function installNow(disk: Disk): void {
  runInstallSteps(disk.dir, installSteps(disk.dir, disk.backups, disk.fileStep), disk.fileStep);
  installed(disk);
}

/** Writes all of `bytes` at the file's position, on the thread pool. */
async function writeAll(fd: number, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await new Promise<number>((resolve, reject) =>
      fs.write(fd, bytes, written, bytes.length - written, null, (error, count) => (error ? reject(error) : resolve(count))),
    );
  }
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise<void>((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
}

type Phase = 'writing' | 'installing' | 'settled';

/** How a background checkpoint ended, for the store to act on. */
export type CheckpointOutcome =
  | { readonly kind: 'installed' }
  /** Nothing moved: the files still hold everything; the store retries later. */
  | { readonly kind: 'notWritten'; readonly error: unknown }
  /** Files are half rotated (each step still loadable): the store must not go on. */
  | { readonly kind: 'installFailed'; readonly error: unknown };

/** An image to write: its bytes and, when it was hashed on another thread (the replica), its SHA-256. */
export interface CheckpointImage {
  readonly bytes: Uint8Array;
  readonly sha256?: Uint8Array;
}

/**
 * Writes an exported image to `foreman.db.tmp` and installs it, awaiting the thread pool between
 * chunks and fsyncs. `settle()` ends it at once, for a close or a checkpoint asked for meanwhile:
 * while writing it is abandoned (the half-written temp file is unlinked, so writes still queued go
 * to a file nobody names); while installing, the remaining steps run synchronously.
 */
export class BackgroundCheckpoint {
  private phase: Phase = 'writing';
  private readonly steps: InstallStep[];
  private nextStep = 0;
  private readonly tempPath: string;
  private resolveDone: () => void = () => undefined;
  /** Settles once the checkpoint has ended, whichever way. */
  readonly done = new Promise<void>((resolve) => (this.resolveDone = resolve));

  constructor(
    private readonly disk: Disk,
    private readonly image: CheckpointImage,
    private readonly onDone: (outcome: CheckpointOutcome) => void,
  ) {
    this.tempPath = path.join(disk.dir, tempImageName);
    this.steps = installSteps(disk.dir, disk.backups, disk.fileStep);
  }

  /** Ends the checkpoint (once): the store hears how, and waiters go on. */
  private end(outcome: CheckpointOutcome | undefined): void {
    this.phase = 'settled';
    this.resolveDone();
    if (outcome) this.onDone(outcome);
  }

  /** Starts the work; the outcome goes to `onDone` (never as a rejected promise). */
  start(): void {
    void this.run();
  }

  get settled(): boolean {
    return this.phase === 'settled';
  }

  /** Ends the checkpoint now: abandoned while writing, finished while installing. */
  settle(): void {
    if (this.phase === 'writing') {
      this.end(undefined);
      fs.rmSync(this.tempPath, { force: true });
      return;
    }
    if (this.phase !== 'installing') return;
    this.phase = 'settled';
    try {
      runInstallSteps(this.disk.dir, this.steps.slice(this.nextStep), this.disk.fileStep);
      installed(this.disk);
    } catch (error) {
      this.end({ kind: 'installFailed', error });
      return;
    }
    this.end({ kind: 'installed' });
  }

  private async run(): Promise<void> {
    let fd: number | undefined;
    try {
      // Opened (and, when settled, unlinked) by name only on this thread, never by a late callback.
      this.disk.fileStep(`write ${tempImageName}`);
      fs.rmSync(this.tempPath, { force: true });
      fd = this.openTemp();
      if (!(await this.writeImage(fd))) return;
    } catch (error) {
      if (this.phase !== 'writing') return;
      this.end({ kind: 'notWritten', error });
      try {
        fs.rmSync(this.tempPath, { force: true });
      } catch {
        // Left behind, it is dropped at the next open or checkpoint; nothing names it meanwhile.
      }
      return;
    } finally {
      // Only here, once nothing is queued on it: a descriptor closed earlier could be reused by a
      // file opened meanwhile and receive this image's late writes.
      if (fd !== undefined) fs.closeSync(fd);
    }
    if (this.phase !== 'writing') return;
    this.phase = 'installing';
    await this.install();
  }

  /**
   * The temp image's file: the oldest backup image, renamed and overwritten in place, when there is
   * one. The install would otherwise rename over it, and a file replaced or deleted gives its blocks
   * back in the file system's journal: on this machine's ext4 the next journal fsyncs waited 30–90 ms
   * behind the freeing of a 280 MiB image (1M tasks), at every checkpoint. Overwritten, its blocks
   * stay allocated. Until the install that backup is missing (foreman.db and foreman.db.1 remain);
   * a crash meanwhile leaves a half-written foreman.db.tmp beside an intact foreman.db, and the next
   * open drops it, as any temp image is dropped while foreman.db exists.
   */
  private openTemp(): number {
    const oldest = path.join(this.disk.dir, generationName(imageName, this.disk.backups));
    if (this.disk.backups > 0 && fs.existsSync(oldest)) {
      fs.renameSync(oldest, this.tempPath);
      return fs.openSync(this.tempPath, 'r+');
    }
    return fs.openSync(this.tempPath, 'wx', 0o600);
  }

  /** Writes and fsyncs the image and its trailer; false when the checkpoint was settled meanwhile. */
  private async writeImage(fd: number): Promise<boolean> {
    const { bytes, sha256 } = this.image;
    // Hashed here, a chunk per turn, unless the replica did it already.
    const hash = crypto.createHash('sha256');
    for (let offset = 0; offset < bytes.length; offset += chunkBytes) {
      if (this.phase !== 'writing') return false;
      const chunk = bytes.subarray(offset, offset + chunkBytes);
      if (sha256 === undefined) hash.update(chunk);
      // Flushed chunk by chunk: on ext4 (data=ordered) the journal's own fsync, on the request
      // path, waits for every dirty block of the file system, so an image left dirty whole made
      // writes wait 10–80 ms behind it. Bounded to one chunk, they wait a millisecond or so; and no
      // chunk, nor the trailer or the cut below, is queued ahead of the group's journal fsync under
      // way (only that one: the image is never starved; issue 34; flushOrder.test.ts holds it).
      await this.disk.journalSyncing;
      await writeAll(fd, chunk);
      await this.disk.journalSyncing;
      await fsyncAsync(fd);
    }
    if (this.phase !== 'writing') return false;
    const trailer = imageTrailer(sha256 === undefined ? hash.digest() : Buffer.from(sha256), bytes.length);
    await this.disk.journalSyncing;
    await writeAll(fd, trailer);
    await this.disk.journalSyncing; // a reused file may be longer than this image: the rest of it goes
    await new Promise<void>((resolve, reject) =>
      fs.ftruncate(fd, bytes.length + trailer.length, (error) => (error ? reject(error) : resolve())),
    );
    if (this.phase !== 'writing') return false;
    this.disk.fileStep(`fsync ${tempImageName}`);
    await this.disk.journalSyncing;
    await fsyncAsync(fd);
    return this.phase === 'writing';
  }

  private async install(): Promise<void> {
    try {
      while (this.nextStep < this.steps.length) {
        const step = this.steps[this.nextStep];
        if (!step || this.phase !== 'installing') return;
        if (step.kind === 'renames') step.run();
        else {
          this.disk.fileStep('fsync the folder');
          await fsyncDirectoryAsync(this.disk.dir);
          if (this.phase !== 'installing') return;
        }
        this.nextStep++;
      }
      installed(this.disk);
    } catch (error) {
      if (this.phase !== 'installing') return;
      this.end({ kind: 'installFailed', error });
      return;
    }
    this.end({ kind: 'installed' });
  }
}
