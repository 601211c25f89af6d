import type { RollupLine } from '../core/archiveSegment';
import type { Reader } from './ports';
import {
  type RollupRow,
  type SessionRow,
  type TransitionRow,
  type WorkerTransitionRow,
  listFinishedTasksBefore,
  listReferrers,
} from './queries';
import type { TaskRow } from './rows';

/**
 * How retention chooses a batch and what it adds to the rollups (archiver.ts writes and applies it):
 * which finished tasks may leave, in which order their rows are deleted, and what the metrics
 * counted of them.
 */

/** Finished tasks before `before` that no live task points at: a chain goes whole (parent and steps) or not at all. */
export function archivableTasks(reader: Reader, before: number, limit: number): TaskRow[] {
  let tasks = listFinishedTasksBefore(reader, before, limit);
  for (;;) {
    const ids = new Set(tasks.map((task) => task.id));
    if (ids.size === 0) return tasks;
    // A chain's step goes only with its parent, so a chain is never shown half archived.
    const whole = tasks.filter((task) => task.parent_task_id === null || ids.has(task.parent_task_id));
    if (whole.length < tasks.length) {
      tasks = whole;
      continue;
    }
    const held = new Set(
      listReferrers(reader, [...ids])
        .filter((referrer) => !ids.has(referrer.id))
        .map((referrer) => referrer.target),
    );
    if (held.size === 0) return tasks;
    tasks = tasks.filter((task) => !held.has(task.id));
  }
}

/** Children before their parents: a parent row cannot be deleted while a child points at it. */
export function deepestFirst(tasks: readonly TaskRow[]): TaskRow[] {
  const parentOf = new Map(tasks.map((task) => [task.id, task.parent_task_id]));
  const depth = (id: string): number => {
    let levels = 0;
    for (let parent = parentOf.get(id); parent && parentOf.has(parent) && levels < tasks.length; parent = parentOf.get(parent)) levels++;
    return levels;
  };
  return [...tasks].sort((a, b) => depth(b.id) - depth(a.id));
}

export function finishedStatus(task: TaskRow): 'done' | 'cancelled' {
  if (task.status === 'done' || task.status === 'cancelled') return task.status;
  throw new Error(`bug: task '${task.id}' in ${task.status} was picked for the archive`);
}

/** What the metrics counted of these rows, to be added to the rollups as they leave. */
export function rollupsOf(
  tasks: readonly TaskRow[],
  sessions: readonly SessionRow[],
  taskTransitions: readonly TransitionRow[],
  workerTransitions: readonly WorkerTransitionRow[],
): RollupLine[] {
  const rollups = new Map<string, RollupRow>();
  const add = (metric: RollupRow['metric'], entity: string, a: string, b: string, count: number, amount: number) => {
    const key = JSON.stringify([metric, entity, a, b]);
    const row = rollups.get(key) ?? { metric, entity, a, b, count: 0, total: 0, max: 0 };
    rollups.set(key, { ...row, count: row.count + count, total: row.total + amount, max: Math.max(row.max, amount) });
  };
  for (const row of [...taskTransitions, ...workerTransitions]) add('transition_pair', row.entity_type, row.from_state, row.to_state, 1, 0);
  // A task leaves with its whole history, so its durations are its consecutive rows'; the last has none.
  const byTask = new Map<string, TransitionRow[]>();
  for (const row of taskTransitions) byTask.set(row.entity_id, [...(byTask.get(row.entity_id) ?? []), row]);
  for (const rows of byTask.values()) {
    rows
      .slice(0, -1)
      .forEach((row, index) => add('time_in_state', 'task', row.to_state, '', 1, (rows[index + 1]?.ts_ms ?? row.ts_ms) - row.ts_ms));
  }
  for (const row of workerTransitions) add('time_in_state', 'worker', row.to_state, '', 1, row.next_ts - row.ts_ms);
  for (const task of tasks) add('finished', '', task.status, '', 1, 0);
  for (const session of sessions) {
    add('usage_input', '', session.worker_id, '', 0, session.input_tokens);
    add('usage_output', '', session.worker_id, '', 0, session.output_tokens);
    add('usage_cache_read', '', session.worker_id, '', 0, session.cache_read_tokens);
    add('usage_cache_write', '', session.worker_id, '', 0, session.cache_write_tokens);
    add('usage_cost', '', session.worker_id, '', 0, session.cost_usd);
  }
  return [...rollups.values()].map((row) => ({ kind: 'rollup' as const, ...row }));
}
