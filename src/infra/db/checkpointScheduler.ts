/**
 * When a store's checkpoints run (checkpointer.ts does the work): one at a time, started on the
 * turn after the write that made one due (that write returns first), and ended at once when the
 * store closes or is asked for a checkpoint of its own.
 */
import { BackgroundCheckpoint, type CheckpointOutcome, rotate } from './checkpointer';
import type { Disk } from './storeDisk';

/** What the scheduler needs from its store. */
export interface CheckpointHost {
  /** False once the store is broken or closed: no checkpoint starts then. */
  readonly usable: () => boolean;
  /** Fsyncs what was appended and raises the acknowledged mark. */
  readonly syncJournal: () => void;
  /** The image at the last committed seq (storeDisk.ts `snapshotImage`). */
  readonly snapshot: () => Uint8Array;
  readonly log: (line: string) => void;
  readonly markBroken: (reason: string) => void;
}

export class CheckpointScheduler {
  private background: BackgroundCheckpoint | undefined;
  private pending: NodeJS.Immediate | undefined;

  constructor(
    private readonly disk: Disk,
    private readonly host: CheckpointHost,
  ) {}

  /** Called after each commit: starts a checkpoint on the next turn once the journal passed its limit. */
  afterCommit(): void {
    const disk = this.disk;
    if (disk.journal.size <= disk.nextCheckpointAt || this.background || this.pending) return;
    this.pending = setImmediate(() => {
      this.pending = undefined;
      this.start();
    });
  }

  /** Resolves once no checkpoint is due or under way. */
  async whenIdle(): Promise<void> {
    while (this.pending || this.background) {
      await (this.background?.done ?? new Promise<void>((resolve) => setImmediate(resolve)));
    }
  }

  /** Ends what is under way before anything else touches the files: abandoned while writing, finished while installing. */
  settle(): void {
    clearImmediate(this.pending);
    this.pending = undefined;
    const job = this.background;
    this.background = undefined;
    job?.settle();
  }

  /**
   * Rotates and exports now, then writes and installs the image in the background. Every write is
   * already durable, so a checkpoint that fails before it moves anything is logged and retried later.
   */
  private start(): void {
    if (!this.host.usable() || this.background) return;
    let image: Uint8Array;
    try {
      rotate(this.disk, this.host.syncJournal);
      image = this.host.snapshot();
    } catch (error) {
      this.ended(undefined, { kind: 'notWritten', error });
      return;
    }
    const job: BackgroundCheckpoint = new BackgroundCheckpoint(this.disk, image, (outcome) => this.ended(job, outcome));
    this.background = job;
    job.start();
  }

  private ended(job: BackgroundCheckpoint | undefined, outcome: CheckpointOutcome): void {
    if (this.background === job) this.background = undefined;
    const disk = this.disk;
    if (outcome.kind === 'notWritten') {
      disk.nextCheckpointAt = disk.journal.size + disk.checkpointBytes;
      this.host.log(`Checkpoint of ${disk.dir} failed (${String(outcome.error)}); the journal keeps every write and it will be retried.`);
    } else if (outcome.kind === 'installFailed' && this.host.usable()) {
      this.host.markBroken(`a checkpoint failed while replacing files: ${String(outcome.error)}`);
    }
  }
}
