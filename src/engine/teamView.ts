import type { LeaseClock } from './ownerLease';
import type { Reader } from './ports';
import { type OwnerRow, listOwners } from './queries';

/** A store several owners share: how long a lease lasts, and the clock leases are kept by (the server's). */
export interface TeamLeases {
  readonly leaseMs: number;
  readonly clock: LeaseClock;
}

/**
 * The lease clock as status reads it: the server's time is this process's plus an offset measured
 * again at most every `everyMs` (each measure is a round trip to the server), so that a view's
 * status read does not cost one more. Clocks drift by far less than a second in that time.
 */
export function offsetLeaseClock(lease: LeaseClock, local: () => number, everyMs: number): LeaseClock {
  let measured: { at: number; offset: number; startedAt: number } | undefined;
  return {
    read() {
      const now = local();
      if (!measured || now - measured.at >= everyMs || now < measured.at) {
        const time = lease.read();
        measured = { at: now, offset: time.now - now, startedAt: time.startedAt };
      }
      return { now: now + measured.offset, startedAt: measured.startedAt };
    },
  };
}

/**
 * One owner of a shared store as `status` shows it (issue 29). Times are on the clock of the
 * process that read them (the lease clock's reading moved by the difference, in whole seconds), so
 * that they compare with the rest of the status; whether it is alive is judged on the lease clock.
 */
export interface OwnerStatus {
  readonly id: string;
  /** The machine whose workers' agents it runs. */
  readonly host: string;
  readonly pid: number | null;
  readonly startedAt: number;
  /** When it last renewed its lease: the lease's end less the lease length (owners of one team share that setting). */
  readonly renewedAt: number;
  /** How long ago that was. */
  readonly leaseAgeMs: number;
  /** Its lease has not run out. */
  readonly alive: boolean;
  /** Since when it is gone (its lease ran out, or it stopped with work on its lease); null while alive. */
  readonly goneSince: number | null;
  /** When another owner took its running work back; null while nobody has. */
  readonly workTakenBackAt: number | null;
}

/**
 * The owner of a worker's machine as `status` flags it: whether anything there launches its agents.
 * A worker whose machine's owner is not alive waits, IDLE or not, until an owner runs there again.
 */
export interface HostOwner {
  /** The machine's live owner, else the one gone last; null when none is known (never started there, or stopped cleanly). */
  readonly ownerId: string | null;
  readonly alive: boolean;
  /** Since when that owner is gone; null while it is alive, or when no owner is known. */
  readonly goneSince: number | null;
}

export interface TeamStatus {
  /** The owners worth showing: every live one, those whose work is still to be taken back, and each dead machine's last. */
  readonly owners: OwnerStatus[];
  /** The owner of the machine `host`; undefined for a worker of any machine (it needs no particular one). */
  hostOwner(host: string | null): HostOwner | undefined;
}

/** Reads the owners of a shared store at `now` (the engine's clock). */
export function readTeam(reader: Reader, now: number, team: TeamLeases): TeamStatus {
  const leaseNow = team.clock.read().now;
  const shift = Math.round((leaseNow - now) / 1000) * 1000;
  const local = (at: number): number => at - shift;
  const isAlive = (row: OwnerRow): boolean => row.released_at === null && row.lease_until_ms >= leaseNow;
  const rows = listOwners(reader);
  const liveHosts = new Set(rows.filter(isAlive).map((row) => row.host));
  // Of a machine with no live owner, the one whose lease ran out last says since when it is down.
  const lastGone = new Map<string, OwnerRow>();
  for (const row of rows) {
    if (isAlive(row) || liveHosts.has(row.host)) continue;
    const held = lastGone.get(row.host);
    if (!held || row.lease_until_ms > held.lease_until_ms) lastGone.set(row.host, row);
  }
  const shown = rows.filter((row) => isAlive(row) || row.released_at === null || lastGone.get(row.host) === row);
  const owners = shown
    .map((row): OwnerStatus => {
      const alive = isAlive(row);
      const renewedAt = local(row.lease_until_ms - team.leaseMs);
      return {
        id: row.id,
        host: row.host,
        pid: row.pid,
        startedAt: local(row.started_at),
        renewedAt,
        leaseAgeMs: Math.max(0, now - renewedAt),
        alive,
        goneSince: alive ? null : local(row.lease_until_ms),
        workTakenBackAt: row.released_at === null ? null : local(row.released_at),
      };
    })
    .sort((a, b) => (a.host === b.host ? a.startedAt - b.startedAt : a.host < b.host ? -1 : 1));
  const hostOwners = new Map<string, HostOwner>();
  for (const owner of owners) {
    const held = hostOwners.get(owner.host);
    if (held?.alive) continue;
    if (owner.alive || !held) hostOwners.set(owner.host, { ownerId: owner.id, alive: owner.alive, goneSince: owner.goneSince });
    else if ((owner.goneSince ?? 0) > (held.goneSince ?? 0))
      hostOwners.set(owner.host, { ownerId: owner.id, alive: false, goneSince: owner.goneSince });
  }
  const unknown: HostOwner = { ownerId: null, alive: false, goneSince: null };
  return { owners, hostOwner: (host) => (host === null ? undefined : (hostOwners.get(host) ?? unknown)) };
}
