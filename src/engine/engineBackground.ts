import type { Result } from '../core/result';
import { ok } from '../core/result';
import { DisposableBase } from '../base/lifetime';
import type { Services } from './handlers';
import { LeaseNotice, type OwnerLease, type Renewal } from './ownerLease';
import type { ArchiveSink, ChangedRows, Clock } from './ports';
import type { PullRequests } from './pullRequests';
import { QueueWaker } from './queueWaker';
import { RunOnceScheduler } from '../base/async';
import { Retention } from './retention';
import type { EngineSettings } from './settings';
import type { Transactor } from './transactor';

/** What the background work of a long-running owner runs over (engine.ts wires it). */
export interface BackgroundParts {
  readonly tx: Transactor;
  readonly services: Services;
  readonly settings: EngineSettings;
  readonly clock: Clock;
  readonly archive: ArchiveSink;
  /** This owner's lease in `owners`, with several owners on one store; undefined with one owner. */
  readonly lease: OwnerLease | undefined;
  /** The `pull-request` hand-off, watched while the owner runs; undefined with `local-merge`. */
  readonly pullRequests: PullRequests | undefined;
  /** Runs its work once the store's identity is committed (storeIdentity.ts). */
  readonly withIdentity: <T>(work: () => T) => T;
  /** Engine-internal work threw, or a lease needs saying: the engine's `onDidFailInBackground`. */
  readonly reportFailure: (error: unknown) => void;
}

/**
 * The work a long-running owner does by itself once started: recovery and the dispatcher and
 * liveness timers (the QueueWaker), the owner's lease (registered, renewed, ended), watching pull
 * requests, and retention. A one-shot engine (a CLI call) never starts it.
 */
export class EngineBackground extends DisposableBase {
  private waker: QueueWaker | undefined;
  /** This owner's lease is kept (a long-running owner): the work it hands out hangs on it. */
  private leaseRunning = false;

  constructor(private readonly parts: BackgroundParts) {
    super();
  }

  /** The owner whose lease the work handed out now hangs on: this one's while its lease runs. */
  leaseHolder(): string | undefined {
    return this.leaseRunning ? this.parts.lease?.owner.id : undefined;
  }

  /**
   * Recover after a restart, then let the waker dispatch on every →Queued and keep one timer each
   * for the next due task and the next liveness deadline.
   */
  start(): void {
    if (this.waker) return;
    const { tx, services, clock, lease, reportFailure } = this.parts;
    const { monitor, dispatcher, picker } = services;
    if (lease) this.startLease(lease);
    tx.internal('monitor', (unit) => ok(monitor.sweep(unit, 'checked at owner start')));
    this.waker = this._register(
      new QueueWaker(
        {
          onDidCommit: tx.onDidCommit,
          // A read first: a full crew or an empty queue opens no transaction.
          dispatch: () => {
            if (tx.read((reader) => dispatcher.mayAssign(reader, tx.now())))
              void tx.internal('dispatcher', (unit) => ok(dispatcher.dispatch(unit)));
          },
          nextDue: (now) => tx.read((reader) => picker.nextDue(reader, now)),
          deadlines: (ids) => tx.read((reader) => monitor.deadlines(reader, ids)),
          sweep: () => void tx.internal('monitor', (unit) => ok(monitor.sweep(unit))),
          reportFailure,
        },
        clock,
      ),
    );
    this.waker.wake();
    this.parts.pullRequests?.startWatching();
    const { archive, settings, withIdentity } = this.parts;
    this._register(new Retention(tx, archive, settings, clock, withIdentity, reportFailure)).start();
  }

  /** Another owner's change: the dispatcher and the liveness deadlines look again (engine.ts `noteExternalChange`). */
  noteExternal(changed: ChangedRows | undefined): void {
    this.waker?.noteExternal(changed && (changed.liveness ?? changed.workers), changed?.mayHaveWork ?? true);
  }

  /** The lease of this owner: registered now, renewed every third of it, the others' checked each time. */
  private startLease(lease: OwnerLease): void {
    const { tx, clock, reportFailure } = this.parts;
    this.leaseRunning = true;
    try {
      const at = tx.internal('owner', (unit) => ok(lease.register(unit)), { quiet: true });
      if (at.ok) lease.succeeded('registered', at.value, clock.now());
    } catch (error) {
      // The server is away: the first renewal registers this owner once it answers.
      const notice = lease.failed(error, clock.now());
      if (notice) reportFailure(notice);
    }
    const renewing = this._register(
      new RunOnceScheduler(
        () => {
          try {
            this.renewLease(lease);
          } catch (error) {
            reportFailure(error);
          }
          renewing.schedule();
        },
        lease.renewEveryMs,
        clock,
      ),
    );
    renewing.schedule();
  }

  /** Renews first, then judges the others (ownerLease.ts): after an outage, each owner's own renewal comes before anyone's verdict. */
  private renewLease(lease: OwnerLease): void {
    const { tx, clock, reportFailure } = this.parts;
    let renewed: Result<{ renewal: Renewal; at: number }>;
    try {
      renewed = tx.internal('owner', (unit) => ok(lease.renew(unit)), { quiet: true });
    } catch (error) {
      const notice = lease.failed(error, clock.now());
      if (notice) reportFailure(notice);
      return;
    }
    const notice = renewed.ok ? lease.succeeded(renewed.value.renewal, renewed.value.at, clock.now()) : undefined;
    if (notice) reportFailure(notice);
    const expired = tx.read((reader) => lease.expired(reader));
    for (const owner of expired) {
      tx.internal('owner', (unit, s) => ok(lease.takeBack(unit, s.state, owner)));
    }
  }

  /** A clean stop's end of the lease: see engine.ts `endLease`. */
  endLease(): void {
    const lease = this.parts.lease;
    if (!lease || !this.leaseRunning || this.isDisposed) return;
    this.leaseRunning = false;
    try {
      this.parts.tx.internal('owner', (unit) => ok(lease.stop(unit)), { quiet: true });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.parts.reportFailure(
        new LeaseNotice(
          `owner ${lease.owner.id} stops without ending its lease (${reason}); the other owners take it for gone once it runs out`,
        ),
      );
    }
  }
}
