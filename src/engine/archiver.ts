import { type ArchiveLine, type RollupLine, archiveLineSchema } from '../core/archiveSegment';
import { type Exporter, toTransitionEvent } from './exporter';
import type { ArchiveSink, Reader } from './ports';
import {
  type RollupRow,
  type SessionRow,
  type TransitionRow,
  type WorkerTransitionRow,
  addRollup,
  countLiveRows,
  deleteArchivedTask,
  deleteMessage,
  deleteTransition,
  findOldestArchivable,
  findTask,
  hasMessage,
  hasTransition,
  listFinishedTasksBefore,
  listMessagesBefore,
  listReferrers,
  listSessionsOfTasks,
  listTransitionsOfTasks,
  listWorkerTransitionsBefore,
  readMeta,
  reclaimFreePages,
  writeMeta,
} from './queries';
import type { TaskRow } from './rows';
import type { Unit } from './unit';

export interface ArchiveReport {
  /** The segment this call wrote; null when nothing was due. */
  readonly batch: number | null;
  readonly tasks: number;
  readonly transitions: number;
  readonly messages: number;
  /** Segments a crash left written but not yet applied, applied now. */
  readonly recovered: number;
  /** More is due than one batch took: ask again. */
  readonly more: boolean;
  /** Rows left in the live tables, once nothing more is due (counting them reads every row). */
  readonly live?: { tasks: number; transitions: number; messages: number };
}

/** A batch chosen and turned into segment lines, to be written and then applied. */
export interface ArchivePlan {
  readonly batch: number;
  readonly lines: readonly ArchiveLine[];
  /** The lines as the segment holds them. */
  readonly texts: readonly string[];
  readonly report: ArchiveReport;
}

/** The last segment whose rows have left the live tables. */
const appliedBatchKey = 'archive_batch';
/** Worker transitions and messages per batch, for each task. */
const rowsPerTask = 10;

/**
 * Retention (issue 13): finished tasks with their transitions and sessions, worker transitions and
 * messages older than the window leave the live database for an append-only segment.
 *
 * Archive, then delete: a batch is written as a sealed segment, read back and checked, and only then
 * applied (its rows deleted, its rollups added, its number recorded) in the same transaction. The
 * segment, not the live rows, says what to delete, so a crash between the two is finished by
 * `recover`: a segment numbered past the recorded one is applied, never written again.
 */
export class Archiver {
  constructor(
    private readonly sink: ArchiveSink,
    private readonly exporter: Exporter,
  ) {}

  /** The time of the oldest finished task or message, which retention will take first; undefined: none. */
  oldestArchivable(reader: Reader): number | undefined {
    return findOldestArchivable(reader);
  }

  /**
   * Applies the segments written before a crash (or a close) kept them from being applied, as long
   * as their rows are still the ones they hold. A segment is written before its rows leave, and
   * meanwhile a finished task may be reset or retried: such a segment is stale and is removed, to
   * be chosen again later; it was never applied, so nothing in it counted.
   */
  recover(unit: Unit): number {
    let applied = 0;
    const last = this.sink.lastBatch();
    for (let batch = appliedBatch(unit.tx) + 1; batch <= last; batch++) {
      const texts = this.sink.read(batch);
      if (!texts) {
        throw new Error(
          `archive segment ${batch} is missing or unsealed while segment ${last} exists; restore it from a backup of .foreman/archive/`,
        );
      }
      const lines = texts.map(parseArchiveLine);
      if (!stillLive(unit.tx, lines)) {
        this.sink.discardFrom(batch);
        break;
      }
      this.apply(unit, batch, lines);
      applied++;
    }
    return applied;
  }

  /** Archives one batch of what finished (or was sent) before `before`: at most `limit` tasks, all in this transaction. */
  archive(unit: Unit, before: number, limit: number): ArchiveReport {
    const plan = this.plan(unit, before, limit);
    if (!isPlan(plan)) return plan;
    this.sink.write(plan.batch, plan.texts);
    this.apply(unit, plan.batch, plan.lines);
    return this.finished(unit, plan.report);
  }

  /**
   * The first half of archiving in steps (the owner's background retention): brings the exports up
   * to date (with `exportRows`, at most that many rows of each: a step that leaves them behind
   * archives nothing and says more is due), then chooses the batch and makes its lines, or reports
   * that nothing is due. The segment is then written off the owner's
   * thread, and `applyPlanned` applies it in a later transaction.
   */
  plan(unit: Unit, before: number, limit: number, exportRows = Number.POSITIVE_INFINITY): ArchivePlan | ArchiveReport {
    const recovered = this.recover(unit);
    // The continuous exports must hold every row before it leaves: they are the log tools follow.
    // A step of the owner's exports at most `exportRows` of each; until they are caught up, nothing leaves.
    if (!this.exporter.exportSome(unit, exportRows)) return { batch: null, tasks: 0, transitions: 0, messages: 0, recovered, more: true };
    const tasks = archivableTasks(unit.tx, before, limit);
    const ids = tasks.map((task) => task.id);
    const taskTransitions = ids.length > 0 ? listTransitionsOfTasks(unit.tx, ids) : [];
    const sessions = ids.length > 0 ? listSessionsOfTasks(unit.tx, ids) : [];
    // A full batch of tasks leaves the rest of the history for later: worker transitions and messages
    // go up to the last task's finish, so every batch takes one stretch of time and reads only it.
    const last = tasks.length === limit ? Math.max(...tasks.map((task) => task.finished_at ?? 0)) : before;
    const horizon = Math.min(before, last + 1);
    const workerTransitions = listWorkerTransitionsBefore(unit.tx, horizon, limit * rowsPerTask);
    const messages = listMessagesBefore(unit.tx, horizon, limit * rowsPerTask);
    const more = tasks.length === limit || workerTransitions.length === limit * rowsPerTask || messages.length === limit * rowsPerTask;
    if (tasks.length + workerTransitions.length + messages.length === 0) {
      return { batch: null, tasks: 0, transitions: 0, messages: 0, recovered, more: false, live: countLiveRows(unit.tx) };
    }
    this.assertExported(taskTransitions, workerTransitions, messages);

    const transitions = [...taskTransitions, ...workerTransitions].sort((a, b) => a.seq - b.seq);
    const lines: ArchiveLine[] = [
      ...deepestFirst(tasks).map((task) => ({ kind: 'task' as const, ...task, status: finishedStatus(task) })),
      ...sessions.map((session) => ({ kind: 'session' as const, ...session })),
      ...transitions.map((row) => ({ kind: 'transition' as const, ...toTransitionEvent(row) })),
      ...messages.map((message) => ({ kind: 'message' as const, ...message })),
      ...rollupsOf(tasks, sessions, taskTransitions, workerTransitions),
    ];
    const batch = appliedBatch(unit.tx) + 1;
    const report = { batch, tasks: tasks.length, transitions: transitions.length, messages: messages.length, recovered, more };
    return { batch, lines, texts: lines.map((line) => JSON.stringify(line)), report };
  }

  /**
   * The second half: applies a planned batch whose segment is now on disk, if its rows are still
   * as written. Meanwhile a task may have been reset, or another call (`foreman archive`) may have
   * applied the segment already; a stale segment is removed and the batch chosen again next time.
   */
  applyPlanned(unit: Unit, plan: ArchivePlan): ArchiveReport {
    const applied = appliedBatch(unit.tx);
    if (applied >= plan.batch) return this.finished(unit, plan.report);
    if (applied !== plan.batch - 1 || !stillLive(unit.tx, plan.lines)) {
      this.sink.discardFrom(plan.batch);
      return { ...plan.report, batch: null, tasks: 0, transitions: 0, messages: 0, more: true };
    }
    this.apply(unit, plan.batch, plan.lines);
    return this.finished(unit, plan.report);
  }

  /** Counting the live rows reads every row: only once nothing more is due. */
  private finished(unit: Unit, report: ArchiveReport): ArchiveReport {
    return { ...report, ...(report.more ? {} : { live: countLiveRows(unit.tx) }) };
  }

  private apply(unit: Unit, batch: number, lines: readonly ArchiveLine[]): void {
    const archived = lines.flatMap((line) => (line.kind === 'task' ? [line.id] : []));
    if (archived.length) unit.events.push({ kind: 'rowsChanged', workers: [], tasks: archived });
    for (const line of lines) {
      switch (line.kind) {
        case 'task':
          deleteArchivedTask(unit.tx, line.id);
          break;
        case 'transition':
          deleteTransition(unit.tx, line.seq);
          break;
        case 'message':
          deleteMessage(unit.tx, line.seq);
          break;
        case 'rollup':
          addRollup(unit.tx, line);
          break;
        case 'session': // leaves with its task
        case 'end':
          break;
      }
    }
    writeMeta(unit.tx, appliedBatchKey, String(batch));
    reclaimFreePages(unit.tx);
  }

  /** The exports were just brought up to date; a row past their end would leave no trace there. */
  private assertExported(...rows: ReadonlyArray<ReadonlyArray<{ seq: number }>>): void {
    const [taskRows = [], workerRows = [], messageRows = []] = rows;
    const lastOf = (list: ReadonlyArray<{ seq: number }>) => list.reduce((max, row) => Math.max(max, row.seq), 0);
    const transitions = Math.max(lastOf(taskRows), lastOf(workerRows));
    const exported = this.exporter.exportedThrough();
    if (transitions > exported.transitions || lastOf(messageRows) > exported.messages) {
      throw new Error(
        `archive: the exports end at transition ${exported.transitions} and message ${exported.messages}, before the rows to archive; nothing was archived`,
      );
    }
  }
}

export function isPlan(planned: ArchivePlan | ArchiveReport): planned is ArchivePlan {
  return 'texts' in planned;
}

/**
 * Whether every row a segment holds is still live and unchanged: its tasks field for field (a
 * finished task can be reset or retried), its transitions and messages by seq (they never change).
 */
function stillLive(reader: Reader, lines: readonly ArchiveLine[]): boolean {
  return lines.every((line) => {
    switch (line.kind) {
      case 'task': {
        const row = findTask(reader, line.id) as Record<string, unknown> | undefined;
        return row !== undefined && Object.entries(line).every(([key, value]) => key === 'kind' || row[key] === value);
      }
      case 'transition':
        return hasTransition(reader, line.seq);
      case 'message':
        return hasMessage(reader, line.seq);
      default:
        return true;
    }
  });
}

function appliedBatch(reader: Reader): number {
  return Number(readMeta(reader, appliedBatchKey) ?? 0);
}

/** Reads a segment line back through its schema: a segment is a file, and files are checked. */
export function parseArchiveLine(text: string): ArchiveLine {
  const parsed = archiveLineSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(`archive segment line is not valid: ${parsed.error.issues[0]?.message ?? 'unknown'}: ${text.slice(0, 200)}`);
  return parsed.data;
}

/** Finished tasks before `before` that no live task points at: a chain goes whole (parent and steps) or not at all. */
function archivableTasks(reader: Reader, before: number, limit: number): TaskRow[] {
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
function deepestFirst(tasks: readonly TaskRow[]): TaskRow[] {
  const parentOf = new Map(tasks.map((task) => [task.id, task.parent_task_id]));
  const depth = (id: string): number => {
    let levels = 0;
    for (let parent = parentOf.get(id); parent && parentOf.has(parent) && levels < tasks.length; parent = parentOf.get(parent)) levels++;
    return levels;
  };
  return [...tasks].sort((a, b) => depth(b.id) - depth(a.id));
}

function finishedStatus(task: TaskRow): 'done' | 'cancelled' {
  if (task.status === 'done' || task.status === 'cancelled') return task.status;
  throw new Error(`bug: task '${task.id}' in ${task.status} was picked for the archive`);
}

/** What the metrics counted of these rows, to be added to the rollups as they leave. */
function rollupsOf(
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
