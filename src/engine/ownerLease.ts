import { formatDuration } from '../core/policies';
import type { Clock, OwnerIdentity, Reader } from './ports';
import {
  type OwnerRow,
  deleteOwnerHoldingNothing,
  deleteReleasedOwnersBefore,
  endOwnerLease,
  findOwner,
  hasLiveOwnerOnHost,
  listBusyWorkersOfOwner,
  listExpiredOwners,
  listUnheldBusyWorkersOnHost,
  releaseExpiredOwner,
  renewOwnerLease,
  upsertOwner,
} from './queries';
import type { StateService } from './stateService';
import type { Unit } from './unit';

/** The time on the clock leases are kept by, and when that clock's server last started. */
export interface LeaseTime {
  /** Now, in epoch milliseconds. */
  readonly now: number;
  /** When the server last started (epoch ms); negative infinity when there is no server of its own. */
  readonly startedAt: number;
}

/**
 * The one clock every owner's lease is written and judged by (issue 29): the shared server's, so
 * that machines whose clocks disagree still agree on when a lease ran out. `read` throws when the
 * server cannot be reached, as any statement would.
 */
export interface LeaseClock {
  read(): LeaseTime;
}

/** The engine's own clock as the lease clock: one owner on one machine (sql.js), and the tests' manual clock. */
export function engineLeaseClock(clock: Clock): LeaseClock {
  return { read: () => ({ now: clock.now(), startedAt: Number.NEGATIVE_INFINITY }) };
}

/** News about this owner's lease for its log (the server lost, found again, the lease lost): not a failure to retry. */
export class LeaseNotice extends Error {
  override readonly name = 'LeaseNotice';
}

/** What a renewal found. */
export type Renewal = 'renewed' | 'lost' | 'registered';

/**
 * One owner's lease among the owners of a shared store (issue 14). Each owner keeps its `owners` row
 * and renews it; when another owner's lease has run out (its machine died, or lost the server for
 * good), its workers' tasks are taken back: each worker's attempt fails as a stale one's would (the
 * task is queued again with attempts left, and the next claim is a new attempt), so a late message
 * from the old attempt is refused by the attempt fencing that already exists. Racing owners take an
 * owner's work back once: the `released_at` guard goes first in the same transaction.
 *
 * An outage is not a death (issue 29). Leases are written and judged by the server's clock
 * (`LeaseClock`), and an owner judges the others only once it has been connected for a whole lease:
 * since its own last successful renewal after a failed one (or its start), and since the server
 * started. When the server comes back, every owner that is still alive renews within a third of a
 * lease, while the others are still waiting out that grace; only the lease of an owner that stays
 * gone is found run out. An owner that cannot reach the server keeps its agents running and says so
 * once, then again when it is back.
 *
 * Workers stay on their host: a host-bound worker goes IDLE and is handed work only by an owner on
 * its own machine (dispatcher.ts), never relaunched elsewhere; a worker of any host (NULL) may be.
 */
export class OwnerLease {
  /**
   * The server time since which every renewal of this owner has succeeded (its start, or its first
   * renewal after a failed one); undefined until one succeeds, and again after each failure.
   */
  private connectedSince: number | undefined;
  /** The engine time of the first failed renewal in a row (undefined: the last one succeeded). */
  private unreachableSince: number | undefined;

  constructor(
    readonly owner: OwnerIdentity,
    private readonly leaseMs: number,
    private readonly clock: LeaseClock,
  ) {}

  /** How often the lease is renewed and the others' checked: a third of the lease. */
  get renewEveryMs(): number {
    return Math.max(100, Math.floor(this.leaseMs / 3));
  }

  /** Registers this owner (again, live) with a fresh lease; the server time it did so. */
  register(unit: Unit): number {
    const { now } = this.clock.read();
    upsertOwner(unit.tx, { id: this.owner.id, host: this.owner.host, pid: this.owner.pid ?? null }, now, now + this.leaseMs);
    return now;
  }

  /**
   * Extends the lease. `lost` when it had run out and the others took this owner's work back
   * meanwhile; `registered` when the owner had no row yet (the server was away at its start). Either
   * way the owner registers again (its old attempts are fenced off already). Call `succeeded` with
   * the answer once its transaction has committed.
   */
  renew(unit: Unit): { renewal: Renewal; at: number } {
    const { now } = this.clock.read();
    if (renewOwnerLease(unit.tx, this.owner.id, now + this.leaseMs) === 1) return { renewal: 'renewed', at: now };
    const lost = findOwner(unit.tx, this.owner.id) !== undefined;
    return { renewal: lost ? 'lost' : 'registered', at: this.register(unit) };
  }

  /** A registration or renewal committed at server time `at`; what to log about it, if anything. */
  succeeded(renewal: Renewal, at: number, engineNow: number): LeaseNotice | undefined {
    this.connectedSince ??= at;
    const away = this.unreachableSince;
    this.unreachableSince = undefined;
    if (renewal === 'lost') {
      return new LeaseNotice(
        `owner ${this.owner.id} had lost its lease (its work was taken back by another owner${away !== undefined ? ` while it could not reach the store for ${formatDuration(engineNow - away)}` : ''}); it holds a new one now`,
      );
    }
    if (away === undefined) return undefined;
    return new LeaseNotice(
      `owner ${this.owner.id} reaches the store again after ${formatDuration(engineNow - away)}: its lease is renewed and its agents' work goes on; ` +
        `the other owners' leases are judged again ${formatDuration(this.leaseMs)} from now, once each has had the time to renew its own`,
    );
  }

  /**
   * A registration or renewal failed (the server is away, or the statement failed): the grace starts
   * again at the next success. Said once per outage; the agents are left running.
   */
  failed(error: unknown, engineNow: number): LeaseNotice | undefined {
    this.connectedSince = undefined;
    if (this.unreachableSince !== undefined) return undefined;
    this.unreachableSince = engineNow;
    const reason = (error instanceof Error ? error.message : String(error)).replace(/[.\s]+$/, '');
    return new LeaseNotice(
      `owner ${this.owner.id} cannot renew its lease (${reason}). Its agents keep running, and it renews as soon as the store answers; ` +
        `after an outage of the store no owner judges another's lease until ${formatDuration(this.leaseMs)} after the store is back.`,
    );
  }

  /**
   * Owners whose lease ran out (by the server's clock) and whose work nobody has taken back yet;
   * none while this owner is not yet a whole lease past its own (re)connection or the server's start.
   */
  expired(reader: Reader): OwnerRow[] {
    if (this.connectedSince === undefined) return [];
    const time = this.clock.read();
    if (time.now - Math.max(this.connectedSince, time.startedAt) < this.leaseMs) return [];
    return listExpiredOwners(reader, time.now, this.owner.id);
  }

  /** Takes an expired owner's running work back; returns the workers whose attempt ended (0: another owner was first). */
  takeBack(unit: Unit, state: StateService, expired: OwnerRow): number {
    const { now } = this.clock.read();
    if (releaseExpiredOwner(unit.tx, expired.id, now) === 0) return 0;
    const reason = `owner ${expired.id} on ${expired.host} stopped renewing its lease`;
    let taken = 0;
    const held = listBusyWorkersOfOwner(unit.tx, expired.id);
    // Work no lease holds on the dead owner's machine was its to run, unless another owner lives there.
    const unheld = hasLiveOwnerOnHost(unit.tx, expired.host, now, expired.id) ? [] : listUnheldBusyWorkersOnHost(unit.tx, expired.host);
    for (const worker of [...held, ...unheld]) {
      // Guarded by state and attempt, like every move: a worker that moved meanwhile is left alone.
      if (state.fail(unit, worker.id, reason, worker.attempt).ok) taken++;
    }
    return taken;
  }

  /**
   * A clean stop (issue 29): this owner's row goes (with its machine's owners of before whose work was
   * taken back), so no one takes a stopped owner for a dead one and status says no owner runs there;
   * while work still hangs on its lease, the row stays and the lease ends now, so that another owner
   * (or this one, started again) takes that work back at its next check rather than a lease later.
   */
  stop(unit: Unit): 'removed' | 'ended' {
    deleteReleasedOwnersBefore(unit.tx, this.owner.id, this.owner.host);
    if (deleteOwnerHoldingNothing(unit.tx, this.owner.id, this.owner.host) === 1) return 'removed';
    endOwnerLease(unit.tx, this.owner.id, this.clock.read().now);
    return 'ended';
  }
}
