/**
 * The owners of a store several machines share, as `status` and `worker list` print them for a
 * person (issue 29): each owner with its host, how long ago it renewed its lease, alive or gone since
 * when; and the machines with no live owner, whose workers wait whatever state they show.
 */
import type { WorkerStatus } from '../engine/statusView';
import type { OwnerStatus } from '../engine/teamView';
import { cell, duration, table } from './table';

/** The OWNER table; nothing with one owner (no owners listed). */
export function ownerTable(owners: readonly OwnerStatus[], now: number): string[] {
  if (owners.length === 0) return [];
  return table(
    ['OWNER', 'HOST', 'PID', 'LEASE', 'STATE'],
    owners.map((owner) => [owner.id, owner.host, cell(owner.pid), `renewed ${duration(owner.leaseAgeMs)} ago`, ownerState(owner, now)]),
  );
}

/** "alive", "gone 2m10s (its work was taken back 2m ago)". */
function ownerState(owner: OwnerStatus, now: number): string {
  if (owner.alive || owner.goneSince === null) return 'alive';
  const gone = `gone ${duration(now - owner.goneSince)}`;
  return owner.workTakenBackAt === null ? gone : `${gone} (its work was taken back ${duration(now - owner.workTakenBackAt)} ago)`;
}

/** A worker's HOST cell: the machine, and whether anything there runs its agents. */
export function hostCell(worker: WorkerStatus, now: number): string {
  const owner = worker.hostOwner;
  if (!worker.host) return '-';
  if (!owner || owner.alive) return worker.host;
  if (owner.goneSince === null) return `${worker.host} (no owner)`;
  return `${worker.host} (owner gone ${duration(now - owner.goneSince)})`;
}

/**
 * One line per machine with workers and no live owner: "machine-a's owner is gone (2m10s): a1, a2
 * wait until an owner runs there again (foreman serve, or VS Code, on machine-a)".
 */
export function downMachineLines(workers: readonly WorkerStatus[], now: number): string[] {
  const down = new Map<string, { workers: string[]; goneSince: number | null }>();
  for (const worker of workers) {
    if (!worker.host || !worker.hostOwner || worker.hostOwner.alive) continue;
    const entry = down.get(worker.host) ?? { workers: [], goneSince: worker.hostOwner.goneSince };
    entry.workers.push(worker.id);
    down.set(worker.host, entry);
  }
  return [...down]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([host, { workers: ids, goneSince }]) => {
      const named = `${cell(ids.join(', '), 120)} ${ids.length === 1 ? 'waits' : 'wait'}`;
      return goneSince === null
        ? `${host} has no owner running: ${named} until one runs there (foreman serve, or VS Code, on ${host})`
        : `${host}'s owner is gone (${duration(now - goneSince)}): ${named} until an owner runs there again (foreman serve, or VS Code, on ${host})`;
    });
}
