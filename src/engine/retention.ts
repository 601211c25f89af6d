import { ok } from '../core/result';
import { isPlan } from './archiver';
import { RunOnceScheduler } from '../base/async';
import { type Disposable, DisposableStore } from '../base/lifetime';
import type { ArchiveSink, Clock } from './ports';
import type { EngineSettings } from './settings';
import type { Transactor } from './transactor';

/**
 * Retention runs soon after an owner starts, then after a commit once the oldest archivable row
 * has come due, or an hour has passed (no timer of its own while nothing happens); a backlog goes a
 * batch at a time. Each pass first brings the JSONL exports up to date, a step at a time.
 */
const archiveFirstMs = 5_000;
const archiveBacklogPauseMs = 50;
/** The longest the exports lag behind a working crew: a pass comes at least this often. */
const exportEveryMs = 3_600_000;
/** After retention was refused (a stray segment waits for a person), how long until it is tried again. */
const archiveRetryMs = 60_000;
/**
 * Rows of each export stream per step: a step of ~14 ms here (p99 ~30 ms; bench/exportSteps.bench.ts),
 * so that a week's backlog is no stop-the-world.
 */
const exportRowsPerStep = 500;
/** Tasks per retention batch: small enough that one batch is a short write (bench/retention.bench.ts). */
const archiveBatchTasks = 50;

/**
 * A long-running owner's retention (issue 13) and JSONL exports, in the background: finished work
 * older than `retainFinishedMs` moves to the archive's segments (archiver.ts), a batch at a time,
 * each in steps so that no request waits behind its file work.
 */
export class Retention implements Disposable {
  private readonly disposables = new DisposableStore();
  private readonly archiving: RunOnceScheduler;
  /** A batch is between its steps (chosen, its segment being written): the next waits. */
  private inSteps = false;
  /** When the oldest row retention would take comes due (Infinity: none). */
  private dueAt = Number.POSITIVE_INFINITY;
  /**
   * Retention refused (a stray segment, another store's export file, a file where the archive folder
   * goes): said once until it changes, and tried again a minute on; the exports go on meanwhile
   * unless they are what refused.
   */
  private refusal: string | undefined;

  constructor(
    private readonly tx: Transactor,
    private readonly archive: ArchiveSink,
    private readonly settings: EngineSettings,
    private readonly clock: Clock,
    /** Runs its work once the store's identity is committed (storeIdentity.ts). */
    private readonly withIdentity: <T>(work: () => T) => T,
    private readonly reportFailure: (error: unknown) => void,
  ) {
    this.archiving = this.disposables.add(new RunOnceScheduler(() => this.archiveDue(), archiveFirstMs, clock));
  }

  /** The first pass soon; after that, passes when commits bring rows due. */
  start(): void {
    const archiving = this.archiving;
    archiving.schedule();
    this.disposables.add(
      this.tx.onDidCommit(() => {
        const now = this.clock.now();
        // With nothing due before, what this commit wrote is the oldest: due a window (or an hour) from now.
        if (this.dueAt === Number.POSITIVE_INFINITY) this.dueAt = now + Math.min(this.settings.retainFinishedMs, exportEveryMs);
        if (!archiving.isScheduled && now >= this.dueAt) archiving.schedule(0);
      }),
    );
  }

  /**
   * One retention batch, in steps so that no request waits behind its file work: the batch is chosen
   * in one transaction, its segment written and fsync'd on the thread pool, and applied in another
   * transaction if its rows are still as written (archiver.ts). A backlog continues after a short
   * pause, so requests are answered in between.
   */
  private archiveDue(): void {
    if (this.inSteps) return;
    this.inSteps = true;
    void this.archiveInSteps().then((more) => {
      this.inSteps = false;
      if (more) this.archiving.schedule(archiveBacklogPauseMs);
    });
  }

  private async archiveInSteps(): Promise<boolean> {
    try {
      this.withIdentity(() => undefined);
      const before = this.clock.now() - this.settings.retainFinishedMs;
      // A refusal is an answer here, not a rejected request: what was done before it stands (an export step).
      const outcome = this.tx.internal('archiver', (unit, services) =>
        ok(services.archiver.plan(unit, before, archiveBatchTasks, exportRowsPerStep)),
      );
      if (!outcome.ok) return false;
      const planned = outcome.value;
      if (!planned.ok) return this.refused(planned.message);
      let done = isPlan(planned.value) ? undefined : planned.value;
      if (isPlan(planned.value)) {
        const plan = planned.value;
        // False: `foreman archive` wrote this batch meanwhile; choose again after the pause.
        const hash = await this.archive.writeInBackground(plan.draft);
        if (hash === false) return true;
        const applied = this.tx.internal('archiver', (unit, services) => ok(services.archiver.applyPlanned(unit, plan, hash)));
        done = applied.ok ? applied.value : undefined;
      }
      if (!done) return false;
      if (this.refusal !== undefined) {
        this.refusal = undefined;
        this.reportFailure(
          new Error(
            `archive: retention goes on${done.batch !== null ? ` (segment ${done.batch} written)` : ''}; what stood in its way is gone`,
          ),
        );
      }
      const oldest = this.tx.read((reader, services) => services.archiver.oldestArchivable(reader));
      const archivable = oldest === undefined ? Number.POSITIVE_INFINITY : oldest + this.settings.retainFinishedMs;
      this.dueAt = Math.min(archivable, this.clock.now() + exportEveryMs);
      return done.more;
    } catch (error) {
      this.reportFailure(error);
      return false;
    }
  }

  private refused(message: string): boolean {
    if (message !== this.refusal) this.reportFailure(new Error(message));
    this.refusal = message;
    this.tx.internal('exporter', (unit, services) => ok(services.exporter.exportSome(unit, exportRowsPerStep)));
    this.dueAt = this.clock.now() + archiveRetryMs;
    return false;
  }

  dispose(): void {
    this.disposables.dispose();
  }
}
