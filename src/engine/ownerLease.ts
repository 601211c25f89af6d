import type { OwnerIdentity, Reader } from './ports';
import {
  type OwnerRow,
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

/**
 * One owner's lease among the owners of a shared store (issue 14). Each owner keeps its `owners` row
 * and renews it; when another owner's lease has run out (its machine died, or lost the server), its
 * workers' tasks are taken back: each worker's attempt fails as a stale one's would (the task is
 * queued again with attempts left, and the next claim is a new attempt), so a late message from the
 * old attempt is refused by the attempt fencing that already exists. Racing owners take an owner's
 * work back once: the `released_at` guard goes first in the same transaction.
 *
 * Workers stay on their host: a host-bound worker goes IDLE and is handed work only by an owner on
 * its own machine (dispatcher.ts), never relaunched elsewhere; a worker of any host (NULL) may be.
 */
export class OwnerLease {
  constructor(
    readonly owner: OwnerIdentity,
    private readonly leaseMs: number,
  ) {}

  /** How often the lease is renewed and the others' checked: a third of the lease. */
  get renewEveryMs(): number {
    return Math.max(100, Math.floor(this.leaseMs / 3));
  }

  /** Registers this owner (again, live) with a fresh lease. */
  register(unit: Unit): void {
    upsertOwner(unit.tx, { id: this.owner.id, host: this.owner.host, pid: this.owner.pid ?? null }, unit.now, unit.now + this.leaseMs);
  }

  /**
   * Extends the lease. `lost` when it had run out and the others took this owner's work back
   * meanwhile; `registered` when the owner had no row yet (the server was away at its start). Either
   * way the owner registers again (its old attempts are fenced off already).
   */
  renew(unit: Unit): 'renewed' | 'lost' | 'registered' {
    if (renewOwnerLease(unit.tx, this.owner.id, unit.now + this.leaseMs) === 1) return 'renewed';
    const lost = findOwner(unit.tx, this.owner.id) !== undefined;
    this.register(unit);
    return lost ? 'lost' : 'registered';
  }

  /** Owners whose lease ran out and whose work nobody has taken back yet. */
  expired(reader: Reader, now: number): OwnerRow[] {
    return listExpiredOwners(reader, now, this.owner.id);
  }

  /** Takes an expired owner's running work back; returns the workers whose attempt ended (0: another owner was first). */
  takeBack(unit: Unit, state: StateService, expired: OwnerRow): number {
    if (releaseExpiredOwner(unit.tx, expired.id, unit.now) === 0) return 0;
    const reason = `owner ${expired.id} on ${expired.host} stopped renewing its lease`;
    let taken = 0;
    const held = listBusyWorkersOfOwner(unit.tx, expired.id);
    // Work no lease holds on the dead owner's machine was its to run, unless another owner lives there.
    const unheld = hasLiveOwnerOnHost(unit.tx, expired.host, unit.now, expired.id)
      ? []
      : listUnheldBusyWorkersOnHost(unit.tx, expired.host);
    for (const worker of [...held, ...unheld]) {
      // Guarded by state and attempt, like every move: a worker that moved meanwhile is left alone.
      if (state.fail(unit, worker.id, reason, worker.attempt).ok) taken++;
    }
    return taken;
  }
}
