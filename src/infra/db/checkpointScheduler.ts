/**
 * When a store's checkpoints run (checkpointer.ts does the work): one at a time, started on the
 * turn after the write that made one due (that write returns first), and ended at once when the
 * store closes or is asked for a checkpoint of its own. The image comes from the replica on another
 * thread when one is ready (replica.ts, started here once the image is large), else from the store's
 * own export.
 */
import * as path from 'node:path';
import { BackgroundCheckpoint, type CheckpointImage, type CheckpointOutcome, prepareNextSegment, rotate } from './checkpointer';
import type { JournalWriter } from './journal';
import { encodeHeader } from './journalFormat';
import { StoreReplica } from './replica';
import { type Disk, journalShare } from './storeDisk';
import { fileSizeOr0, imageName, journalName } from './storeFiles';

/** Replicas started per store before it stops trying (each failure is logged). */
const maxReplicaStarts = 3;

/** What the scheduler needs from its store. */
export interface CheckpointHost {
  /** False once the store is broken or closed: no checkpoint starts then. */
  readonly usable: () => boolean;
  /** Fsyncs what was appended and raises the acknowledged mark. */
  readonly syncJournal: () => void;
  /** The image at the last committed seq (storeDisk.ts `snapshotImage`), exported on this thread. */
  readonly snapshot: () => Uint8Array;
  /** The seq of the last committed record: a replica starts from it, and exports the image at it. */
  readonly lastSeq: () => number;
  readonly log: (line: string) => void;
  readonly markBroken: (reason: string) => void;
}

/** A checkpoint waiting for its image from the replica; `cancelled` once settled meanwhile. */
interface Exporting {
  cancelled: boolean;
  readonly done: Promise<void>;
}

/** Where the images of background checkpoints came from, for tests and benchmarks. */
export interface ImageSources {
  /** Exported by the replica on its thread. */
  fromReplica: number;
  /** Exported on the owner's thread (no replica ready, or it failed). */
  exportedHere: number;
}

export class CheckpointScheduler {
  readonly sources: ImageSources = { fromReplica: 0, exportedHere: 0 };
  private background: BackgroundCheckpoint | undefined;
  private pending: NodeJS.Immediate | undefined;
  private exporting: Exporting | undefined;
  /** A copy on another thread that exports for checkpoints (replica.ts), once the image is large. */
  private replica: StoreReplica | undefined;
  /** The segment whose statement table the replica holds (it reads foreman.journal's when it starts). */
  private replicaSegment: JournalWriter | undefined;
  private replicaStarts = 0;
  /** The size of the last image written, which decides whether a replica is worth its memory. */
  private imageBytes: number;

  constructor(
    private readonly disk: Disk,
    private readonly host: CheckpointHost,
  ) {
    this.imageBytes = fileSizeOr0(path.join(disk.dir, imageName));
  }

  /**
   * Called after each commit with its record (`encodeRecord`'s bytes, sent on to the replica). Half
   * way to a checkpoint, prepares the next journal segment and starts a replica if one is worth it;
   * starts a checkpoint on the next turn once the journal passed its limit.
   * While a replica is loading the checkpoint waits for it, however long that takes (the journal
   * keeps every write meanwhile): exported here instead it would stop the owner for as long as the
   * copy takes (18.2 s at 1M tasks with 1M history rows, issue 34) and move the files it reads.
   */
  afterCommit(record: Buffer): void {
    const disk = this.disk;
    if (this.replica && this.replicaSegment !== disk.journal) {
      // The first record of a new segment: the replica learns its statement table first.
      this.replica.send(encodeHeader(disk.journal.table.statements));
      this.replicaSegment = disk.journal;
    }
    this.replica?.send(record);
    if (journalShare(disk) > 0.5) {
      prepareNextSegment(disk, this.host.log);
      this.startReplica();
    }
    if (journalShare(disk) <= disk.nextCheckpointAt || this.busy || this.pending) return;
    if (this.replicaLoading) return;
    this.pending = setImmediate(() => {
      this.pending = undefined;
      this.start();
    });
  }

  /** True while a checkpoint is under way (its image exported elsewhere, or being written). */
  get busy(): boolean {
    return this.background !== undefined || this.exporting !== undefined;
  }

  /** Whether a replica is loaded and following the writes. */
  get replicaReady(): boolean {
    return this.replica?.ready === true;
  }

  /** The store wrote an image itself (its own checkpoint): its size decides whether a replica is worth it. */
  imageWritten(imageBytes: number): void {
    this.imageBytes = imageBytes;
  }

  /** Stops the replica, if any: the store broke or closes. */
  dropReplica(): void {
    this.replica?.dispose();
    this.replica = undefined;
  }

  /** Resolves once no checkpoint is due or under way. */
  async whenIdle(): Promise<void> {
    while (this.pending || this.busy) {
      await (this.background?.done ?? this.exporting?.done ?? new Promise<void>((resolve) => setImmediate(resolve)));
    }
  }

  /** Ends what is under way before anything else touches the files: abandoned while writing, finished while installing. */
  settle(): void {
    clearImmediate(this.pending);
    this.pending = undefined;
    // Nothing is written yet; the rotated segment stays, and the next image includes it.
    if (this.exporting) this.exporting.cancelled = true;
    this.exporting = undefined;
    const job = this.background;
    this.background = undefined;
    job?.settle();
  }

  /**
   * Rotates now, gets the image at that seq (from the replica, or exported here), then writes and
   * installs it in the background. Every write is already durable, so a checkpoint that fails before
   * it moves anything is logged and retried later.
   */
  private start(): void {
    if (!this.host.usable() || this.busy || this.replicaLoading) return;
    let elsewhere: Promise<CheckpointImage> | undefined;
    try {
      rotate(this.disk, this.host.syncJournal);
      elsewhere = this.replica?.ready ? this.replica.image(this.host.lastSeq()) : undefined;
      if (!elsewhere) {
        this.write(this.exportHere());
        return;
      }
    } catch (error) {
      this.ended(undefined, { kind: 'notWritten', error });
      return;
    }
    let finish: () => void = () => undefined;
    const exporting: Exporting = { cancelled: false, done: new Promise<void>((resolve) => (finish = resolve)) };
    this.exporting = exporting;
    const next = (image: () => CheckpointImage): void => {
      finish();
      if (exporting.cancelled) return;
      this.exporting = undefined;
      if (!this.host.usable()) return;
      try {
        this.write(image());
      } catch (error) {
        this.ended(undefined, { kind: 'notWritten', error });
      }
    };
    // A replica that failed has said why (replica.ts); the image is then exported here, at a later
    // seq than the rotation's, which loads the same way: records the image includes are skipped.
    elsewhere.then(
      (image) => {
        this.sources.fromReplica++;
        next(() => image);
      },
      () => next(() => this.exportHere()),
    );
  }

  /** True while a replica is loading: a checkpoint due meanwhile waits for it (see `afterCommit`). */
  private get replicaLoading(): boolean {
    return this.replica?.loading === true;
  }

  /**
   * Starts a replica half way to a checkpoint, when the image is large enough for its export to be
   * felt (a one-shot call or a small store never gets one), while no checkpoint moves the files it
   * loads. A replica that keeps failing is given up on; checkpoints then export here.
   */
  private startReplica(): void {
    const disk = this.disk;
    if (this.replica?.failed === false || this.imageBytes < disk.replicaFromBytes || this.busy) return;
    if (disk.active !== journalName || this.replicaStarts >= maxReplicaStarts) return;
    this.replicaStarts++;
    this.replica = new StoreReplica(disk.dir, this.host.lastSeq(), this.host.log);
    this.replicaSegment = disk.journal;
  }

  private exportHere(): CheckpointImage {
    this.sources.exportedHere++;
    return { bytes: this.host.snapshot() };
  }

  private write(image: CheckpointImage): void {
    const job: BackgroundCheckpoint = new BackgroundCheckpoint(this.disk, image, (outcome) => this.ended(job, outcome, image.bytes.length));
    this.background = job;
    job.start();
  }

  private ended(job: BackgroundCheckpoint | undefined, outcome: CheckpointOutcome, imageBytes = 0): void {
    if (this.background === job) this.background = undefined;
    const disk = this.disk;
    if (outcome.kind === 'installed') this.imageBytes = imageBytes;
    else if (outcome.kind === 'notWritten') {
      disk.nextCheckpointAt = journalShare(disk) + 1;
      this.host.log(`Checkpoint of ${disk.dir} failed (${String(outcome.error)}); the journal keeps every write and it will be retried.`);
    } else if (outcome.kind === 'installFailed' && this.host.usable()) {
      this.host.markBroken(`a checkpoint failed while replacing files: ${String(outcome.error)}`);
    }
  }
}
