/**
 * When a store's checkpoints run (checkpointer.ts does the work): one at a time, started on the
 * turn after the write that made one due (that write returns first), and ended at once when the
 * store closes or is asked for a checkpoint of its own. The image comes from the store's replica on
 * another thread when it has one ready (replica.ts), else from the store's own export.
 */
import { BackgroundCheckpoint, type CheckpointImage, type CheckpointOutcome, rotate } from './checkpointer';
import type { Disk } from './storeDisk';

/** What the scheduler needs from its store. */
export interface CheckpointHost {
  /** False once the store is broken or closed: no checkpoint starts then. */
  readonly usable: () => boolean;
  /** Fsyncs what was appended and raises the acknowledged mark. */
  readonly syncJournal: () => void;
  /** The image at the last committed seq (storeDisk.ts `snapshotImage`), exported on this thread. */
  readonly snapshot: () => Uint8Array;
  /** The same image exported on another thread (the replica), or undefined when there is none ready. */
  readonly snapshotElsewhere: () => Promise<CheckpointImage> | undefined;
  /** True while a replica is loading: a checkpoint due meanwhile waits for it, within reason. */
  readonly replicaLoading: () => boolean;
  /** Hears each image installed, with its size. */
  readonly installed: (imageBytes: number) => void;
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

  constructor(
    private readonly disk: Disk,
    private readonly host: CheckpointHost,
  ) {}

  /**
   * Called after each commit: starts a checkpoint on the next turn once the journal passed its limit.
   * While a replica is loading (a fraction of a second) the checkpoint waits for it, up to twice
   * the limit: exported here instead it would stop the owner, and move the files the replica reads.
   */
  afterCommit(): void {
    const disk = this.disk;
    if (disk.journal.size <= disk.nextCheckpointAt || this.busy || this.pending) return;
    if (this.host.replicaLoading() && disk.journal.size <= disk.nextCheckpointAt + disk.checkpointBytes) return;
    this.pending = setImmediate(() => {
      this.pending = undefined;
      this.start();
    });
  }

  /** True while a checkpoint is under way (its image exported elsewhere, or being written). */
  get busy(): boolean {
    return this.background !== undefined || this.exporting !== undefined;
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
    if (!this.host.usable() || this.busy) return;
    let elsewhere: Promise<CheckpointImage> | undefined;
    try {
      rotate(this.disk, this.host.syncJournal);
      elsewhere = this.host.snapshotElsewhere();
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
    if (outcome.kind === 'installed') this.host.installed(imageBytes);
    else if (outcome.kind === 'notWritten') {
      disk.nextCheckpointAt = disk.journal.size + disk.checkpointBytes;
      this.host.log(`Checkpoint of ${disk.dir} failed (${String(outcome.error)}); the journal keeps every write and it will be retried.`);
    } else if (outcome.kind === 'installFailed' && this.host.usable()) {
      this.host.markBroken(`a checkpoint failed while replacing files: ${String(outcome.error)}`);
    }
  }
}
