import { type Usage, zeroUsage } from '../core/agentEvents';
import type { StatusSnapshot, TaskStatusView, WorkerStatus } from '../engine/statusView';
import type { OwnerStatus } from '../engine/teamView';
import type { Event } from '../base/lifetime';
import type { EngineEvent } from '../engine/unit';

/** What changed in one folder's state since the views last heard. */
export interface StatusDelta {
  /** Workers whose row changed, appeared or went away. */
  readonly workers: ReadonlySet<string>;
  /** Tasks whose row changed, appeared or went away. */
  readonly tasks: ReadonlySet<string>;
  /** Rows appeared or went away: lists and groups may have changed shape, not only content. */
  readonly membership: boolean;
  /** The usage total, the base branch or the owners (of a shared store) changed. */
  readonly totals: boolean;
}

/** What the views hear after a coalesced burst: each folder's delta, and whether folders came or went. */
export interface ViewsChange {
  readonly deltas: ReadonlyMap<string, StatusDelta>;
  readonly sessionsChanged: boolean;
}

export const noChange: StatusDelta = { workers: new Set(), tasks: new Set(), membership: false, totals: false };

export function isNoChange(delta: StatusDelta): boolean {
  return !delta.membership && !delta.totals && delta.workers.size === 0 && delta.tasks.size === 0;
}

/** Both deltas in one (what a view that redraws once for two changes needs). */
export function mergeDeltas(a: StatusDelta, b: StatusDelta): StatusDelta {
  if (isNoChange(a)) return b;
  if (isNoChange(b)) return a;
  return {
    workers: new Set([...a.workers, ...b.workers]),
    tasks: new Set([...a.tasks, ...b.tasks]),
    membership: a.membership || b.membership,
    totals: a.totals || b.totals,
  };
}

/** The rows a model re-reads: ids in the order they were first named. */
export interface RowIds {
  readonly workers: readonly string[];
  readonly tasks: readonly string[];
}

/** The workers and tasks one commit's events name, in event order (a new task's `created` comes in queue order). */
export function touchedBy(events: readonly EngineEvent[]): { workers: Set<string>; tasks: Set<string> } {
  const workers = new Set<string>();
  const tasks = new Set<string>();
  for (const event of events) {
    switch (event.kind) {
      case 'worker':
        workers.add(event.id);
        break;
      case 'task':
      case 'unblocked':
        tasks.add(event.id);
        break;
      case 'created':
        (event.entity === 'worker' ? workers : tasks).add(event.id);
        break;
      case 'heartbeat':
        workers.add(event.workerId);
        break;
      case 'rowsChanged':
        event.workers.forEach((id) => workers.add(id));
        event.tasks.forEach((id) => tasks.add(id));
        break;
      case 'message':
      case 'rejected':
        break;
    }
  }
  return { workers, tasks };
}

/** Rows to read again, gathered between reads; `all`: read everything. */
export type PendingRows = { workers: Set<string>; tasks: Set<string> } | 'all';

/**
 * Adds what a change named to the rows pending: a commit's ids, or another owner's (issue 14) as its
 * notification named them; a change that named none (`undefined`: ids not known) makes it `all`.
 */
export function addPending(
  pending: PendingRows,
  changed: { readonly workers: Iterable<string>; readonly tasks: Iterable<string> } | undefined,
): PendingRows {
  if (pending === 'all' || changed === undefined) return 'all';
  for (const id of changed.workers) pending.workers.add(id);
  for (const id of changed.tasks) pending.tasks.add(id);
  return pending;
}

/**
 * One folder's workers and tasks as the views show them, kept up to date by what each commit
 * touched instead of by reading everything again. Invariant (test/integration/extension): after
 * `update` with the rows a commit touched, `snapshot()` equals a full read at the same moment,
 * except `heartbeatAgeMs`, which only says how long ago and is not compared.
 *
 * Order: workers by id, as the full read; tasks in queue order, which is creation order because a
 * task's `sort_order` is fixed at MAX + 1 when it is created, so a new task goes at the end.
 */
export class StatusModel {
  private workers = new Map<string, { row: WorkerStatus; key: string }>();
  private tasks = new Map<string, { row: TaskStatusView; key: string }>();
  private baseBranch: string | null = null;
  private usage: Usage = zeroUsage;
  private owners: OwnerStatus[] = [];
  /** The owners as compared: without their lease age, which moves with the clock. */
  private ownersKey = '[]';
  private cached: StatusSnapshot | undefined;

  /** Takes a full read; the delta is what differs from what the model held (everything, the first time). */
  replace(full: StatusSnapshot): StatusDelta {
    const workers = new Map(full.workers.map((row) => [row.id, { row, key: workerKey(row) }]));
    const tasks = new Map(full.tasks.map((row) => [row.id, { row, key: JSON.stringify(row) }]));
    const changedWorkers = changedRows(this.workers, workers);
    const changedTasks = changedRows(this.tasks, tasks);
    const membership =
      workers.size !== this.workers.size ||
      tasks.size !== this.tasks.size ||
      !sameOrder(this.workers, workers) ||
      !sameOrder(this.tasks, tasks);
    const totals = this.takeTotals(full);
    this.workers = workers;
    this.tasks = tasks;
    this.cached = undefined;
    return { workers: changedWorkers, tasks: changedTasks, membership, totals };
  }

  /** Takes a read of the `asked` rows: found ones are updated or added, asked ones not found are gone. */
  update(read: StatusSnapshot, asked: RowIds): StatusDelta {
    const workers = new Set<string>();
    const tasks = new Set<string>();
    let membership = false;
    const foundWorkers = new Map(read.workers.map((row) => [row.id, row]));
    for (const id of asked.workers) {
      const row = foundWorkers.get(id);
      const outcome = upsert(this.workers, id, row, workerKey);
      if (outcome === 'same') continue;
      workers.add(id);
      if (outcome !== 'changed') membership = true;
      if (outcome === 'added') this.workers = sortedById(this.workers);
    }
    const foundTasks = new Map(read.tasks.map((row) => [row.id, row]));
    for (const id of asked.tasks) {
      const outcome = upsert(this.tasks, id, foundTasks.get(id), (row) => JSON.stringify(row));
      if (outcome === 'same') continue;
      tasks.add(id);
      if (outcome !== 'changed') membership = true;
    }
    const totals = this.takeTotals(read);
    if (workers.size || tasks.size || totals) this.cached = undefined;
    return { workers, tasks, membership, totals };
  }

  /**
   * What to read again after a commit that named these rows: them, and the rows they show of each
   * other (a worker's task and a task's worker), as the model knows them now.
   */
  rowsToRead(touched: { workers: ReadonlySet<string>; tasks: ReadonlySet<string> }): RowIds {
    const workers = new Set(touched.workers);
    const tasks = new Set(touched.tasks);
    for (const id of touched.workers) {
      const taskId = this.workers.get(id)?.row.taskId;
      if (taskId) tasks.add(taskId);
    }
    for (const id of touched.tasks) {
      const workerId = this.tasks.get(id)?.row.workerId;
      if (workerId) workers.add(workerId);
    }
    return { workers: [...workers], tasks: [...tasks] };
  }

  workerIds(): string[] {
    return [...this.workers.keys()];
  }

  worker(id: string): WorkerStatus | undefined {
    return this.workers.get(id)?.row;
  }

  task(id: string): TaskStatusView | undefined {
    return this.tasks.get(id)?.row;
  }

  /** The whole state; the same object until something changes, so views may cache what they derive from it. */
  snapshot(): StatusSnapshot {
    this.cached ??= {
      baseBranch: this.baseBranch,
      workers: [...this.workers.values()].map((entry) => entry.row),
      tasks: [...this.tasks.values()].map((entry) => entry.row),
      usage: this.usage,
      owners: this.owners,
    };
    return this.cached;
  }

  private takeTotals(read: StatusSnapshot): boolean {
    const ownersKey = JSON.stringify(read.owners.map((owner) => ({ ...owner, leaseAgeMs: null })));
    const changed =
      read.baseBranch !== this.baseBranch || JSON.stringify(read.usage) !== JSON.stringify(this.usage) || ownersKey !== this.ownersKey;
    this.baseBranch = read.baseBranch;
    this.usage = read.usage;
    this.owners = read.owners;
    this.ownersKey = ownersKey;
    if (changed) this.cached = undefined;
    return changed;
  }
}

/** A worker's row without its age, which moves with the clock and says nothing new. */
function workerKey(row: WorkerStatus): string {
  return JSON.stringify({ ...row, heartbeatAgeMs: null });
}

function upsert<T>(
  rows: Map<string, { row: T; key: string }>,
  id: string,
  row: T | undefined,
  keyOf: (row: T) => string,
): 'same' | 'changed' | 'added' | 'removed' {
  const held = rows.get(id);
  if (!row) {
    if (!held) return 'same';
    rows.delete(id);
    return 'removed';
  }
  const key = keyOf(row);
  if (held?.key === key) return 'same';
  rows.set(id, { row, key });
  return held ? 'changed' : 'added';
}

function changedRows<T>(before: Map<string, { key: string }>, after: Map<string, { row: T; key: string }>): Set<string> {
  const changed = new Set<string>();
  for (const [id, entry] of after) if (before.get(id)?.key !== entry.key) changed.add(id);
  for (const id of before.keys()) if (!after.has(id)) changed.add(id);
  return changed;
}

function sameOrder(a: Map<string, unknown>, b: Map<string, unknown>): boolean {
  if (a.size !== b.size) return false;
  const left = a.keys();
  for (const id of b.keys()) if (left.next().value !== id) return false;
  return true;
}

function sortedById<V>(rows: Map<string, V>): Map<string, V> {
  return new Map([...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One session's changes as the views hear them, each at once (no coalescing): for tests, benchmarks and a host of one folder. */
export function changesOf(session: {
  readonly root: string;
  readonly onDidChange: Event<void>;
  takeChanges(): StatusDelta;
}): Event<ViewsChange> {
  return (listener) =>
    session.onDidChange(() => {
      const delta = session.takeChanges();
      if (!isNoChange(delta)) listener({ deltas: new Map([[session.root, delta]]), sessionsChanged: false });
    });
}
