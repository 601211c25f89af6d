import { TaskStatus } from '../core/taskMachine';
import { RunOnceScheduler } from '../base/async';
import { DisposableBase, type Event, MutableDisposable } from '../base/lifetime';
import { DeadlineQueue } from '../base/deadlineQueue';
import type { Clock } from './ports';
import { type EngineEvent, livenessWorkerOf, mayHaveWork } from './unit';

/** How long internal work that failed waits before it is tried again. */
const retryAfterFailureMs = 5_000;

/**
 * Events after which the earliest `scheduled_for` may come sooner: a task queued (a retry's
 * backoff, a scheduled start), or rows changed outside a transition. A task that leaves the queue
 * can only make it later: the due timer then fires early, and the dispatcher finds nothing.
 */
function mayMoveDue(event: EngineEvent): boolean {
  if (event.kind === 'task') return event.to === TaskStatus.Queued;
  if (event.kind === 'created') return event.entity === 'task';
  if (event.kind === 'rowsChanged') return event.tasks.length > 0;
  return event.kind === 'unblocked';
}

/** What the waker may do, given by the engine at construction (and nothing more of it). */
export interface WakerDuties {
  readonly onDidCommit: Event<readonly EngineEvent[]>;
  /** Hands out runnable tasks, as one internal transaction. */
  dispatch(): void;
  /** The earliest `scheduled_for` after `now`, if any. */
  nextDue(now: number): number | undefined;
  /** Liveness deadlines of these workers (all workers without ids). */
  deadlines(ids?: Iterable<string>): ReadonlyMap<string, number | undefined>;
  /** Moves workers whose deadline passed (WARN, STALE, DEAD), as one internal transaction. */
  sweep(): void;
  /** Internal work threw; it is retried by the waker. */
  reportFailure(error: unknown): void;
}

/**
 * Seed 001's QueueWaker, made automatic: any commit that may have made work runnable wakes the
 * dispatcher, so no caller has to remember. Between events nothing runs: one timer waits for the
 * earliest `scheduled_for`, one for the monitor's next liveness deadline. No polling loop.
 */
export class QueueWaker extends DisposableBase {
  private wakePending = false;
  private rearmPending = false;
  /**
   * When the dispatcher last looked: a task that came due after it (even before the timers are
   * armed, on a busy event loop) is what the due timer waits for, so none falls between the two.
   */
  private dispatchedAt: number | undefined;
  private readonly dueTimer = this._register(new MutableDisposable());
  private readonly livenessTimer = this._register(new MutableDisposable());
  /** Internal work that failed runs again after `retryAfterFailureMs`; one retry at a time. */
  private readonly retry: RunOnceScheduler;
  /** Each worker's liveness deadline, updated for the workers a commit touched (issue 13). */
  private readonly deadlines = new DeadlineQueue();
  private readonly touched = new Set<string>();
  /** Read every worker again at the next rearm: at start, and after each sweep as a safety net. */
  private rescan = true;
  /** Read the earliest `scheduled_for` again at the next rearm: after a dispatch, or a task queued. */
  private dueMoved = true;

  constructor(
    private readonly duties: WakerDuties,
    private readonly clock: Clock,
  ) {
    super();
    this.retry = this._register(
      new RunOnceScheduler(
        () => {
          this.wake();
          this.checkLiveness();
        },
        retryAfterFailureMs,
        clock,
      ),
    );
    this._register(
      duties.onDidCommit((events) => {
        if (events.some(mayHaveWork)) this.wake();
        // A liveness deadline comes sooner only for a worker moved into a watched state, or whose
        // wait for input may have ended: a claim, a plain heartbeat, a worker leaving work read
        // nothing (a deadline left in the queue is read again when it comes, `checkLiveness`).
        let rearm = false;
        for (const event of events) {
          const worker = livenessWorkerOf(event);
          if (worker !== undefined) this.touched.add(worker);
          if (mayMoveDue(event)) this.dueMoved = true;
          rearm ||= worker !== undefined || this.dueMoved;
        }
        if (rearm) this.rearm();
      }),
    );
  }

  /**
   * Another owner changed something: the liveness deadlines of `workers` are read again (every
   * worker's when undefined: which is not known), and the dispatcher runs only when the change may
   * have made work runnable. A change that is neither costs nothing (issue 29: owner costs stay flat
   * as machines join).
   */
  noteExternal(workers: readonly string[] | undefined, mayHaveWork = true): void {
    if (this.isDisposed) return;
    if (workers === undefined) this.rescan = true;
    else workers.forEach((id) => this.touched.add(id));
    if (mayHaveWork) this.wake();
    else if (workers === undefined || workers.length > 0) this.rearm();
  }

  /** Dispatches once, soon; several wakes in one turn of the event loop coalesce into one. */
  wake(): void {
    if (this.wakePending || this.isDisposed) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      if (this.isDisposed) return;
      this.dispatchedAt = this.clock.now();
      this.guarded(() => this.duties.dispatch());
      this.dueMoved = true;
      this.rearm();
    });
  }

  private rearm(): void {
    if (this.rearmPending || this.isDisposed) return;
    this.rearmPending = true;
    setImmediate(() => this.guarded(() => this.armTimers()));
  }

  private armTimers(): void {
    this.rearmPending = false;
    if (this.isDisposed) return;
    const now = this.clock.now();
    if (this.dueMoved) {
      this.dueMoved = false;
      const due = this.duties.nextDue(Math.min(now, this.dispatchedAt ?? now));
      this.dueTimer.value = due === undefined ? undefined : this.clock.setTimeout(() => this.wake(), Math.max(0, due - now) + 5);
    }
    const deadline = this.nextDeadline();
    this.livenessTimer.value =
      deadline === undefined ? undefined : this.clock.setTimeout(() => this.checkLiveness(), Math.max(0, deadline - now) + 5);
  }

  private nextDeadline(): number | undefined {
    const ids = this.rescan ? undefined : [...this.touched];
    if (this.rescan) this.deadlines.clear();
    this.rescan = false;
    this.touched.clear();
    if (ids?.length !== 0) {
      const found = this.duties.deadlines(ids);
      for (const [id, at] of found) this.deadlines.set(id, at);
    }
    return this.deadlines.next();
  }

  /**
   * A liveness deadline came. The queue's may be early (a plain heartbeat leaves its worker's in
   * place), so the workers due are read again first, and only when one of them really is due does the
   * monitor sweep the crew (every deadline is read again after a sweep, as a safety net).
   */
  private checkLiveness(): void {
    if (this.isDisposed) return;
    if (this.rescan || this.reallyDue(this.clock.now())) {
      this.rescan = true;
      this.guarded(() => this.duties.sweep());
    }
    this.rearm();
  }

  /** Reads the workers whose deadline has come again: whether one still has it due (or the read failed). */
  private reallyDue(now: number): boolean {
    const due = this.deadlines.takeDue(now);
    let reallyDue = true;
    this.guarded(() => {
      const found = this.duties.deadlines(due);
      for (const [id, at] of found) this.deadlines.set(id, at);
      reallyDue = [...found.values()].some((at) => at !== undefined && at <= now);
    });
    return reallyDue;
  }

  /**
   * Runs a step of internal work. One that throws (a write the full disk kept from being saved) is
   * reported, and the dispatcher and monitor run again after `retryAfterFailureMs`: nobody else
   * would wake them, and work that was due must not wait for the next unrelated commit.
   */
  private guarded(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.duties.reportFailure(error);
      if (!this.retry.isScheduled && !this.isDisposed) this.retry.schedule();
    }
  }
}
