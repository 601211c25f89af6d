import { type ArchiveLine, type SegmentDraft, archiveLineSchema } from '../core/archiveSegment';
import { type Result, ok, refused } from '../core/result';
import { archivableTasks, deepestFirst, finishedStatus, rollupsOf } from './archiveBatch';
import { appliedBatch, headHash, nextLinkBreak, recordApplied, strayMessage } from './archiveChain';
import { type Exporter, toTransitionEvent } from './exporter';
import type { ArchiveSink, Reader } from './ports';
import {
  addRollup,
  countLiveRows,
  deleteArchivedTask,
  deleteMessage,
  deleteTransition,
  findOldestArchivable,
  findTask,
  hasMessage,
  hasTransition,
  listMessagesBefore,
  listSessionsOfTasks,
  listTransitionsOfTasks,
  listWorkerTransitionsBefore,
  reclaimFreePages,
} from './queries';
import { ensureStoreId } from './storeIdentity';
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
  /** The segment to write: the lines as it holds them, its store, the previous segment's hash. */
  readonly draft: SegmentDraft;
  readonly report: ArchiveReport;
}

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
   *
   * Only this store's next link is applied or removed (issue 28): a segment file past the recorded
   * chain that does not continue it (another store's, a gap in the numbers, reordered, unsealed) is
   * refused with what to do, and never deleted. A segment from before segments named their store is
   * taken as this store's when it is the next one and its rows are still live.
   */
  recover(unit: Unit): Result<number> {
    const problem = this.sink.problem();
    if (problem) return refused('archiveFolder', `archive: ${problem}.`);
    const store = ensureStoreId(unit.tx);
    let applied = appliedBatch(unit.tx);
    let head = headHash(unit.tx, this.sink, applied);
    let recovered = 0;
    let discarding = false;
    for (const batch of this.sink.batches()) {
      if (batch <= applied) continue;
      const read = this.sink.read(batch);
      // After a stale segment, this store's later ones are stale too (they were planned on top of it).
      if (discarding && read.state === 'sealed' && read.end.store === store) {
        this.sink.discard(batch);
        continue;
      }
      const broken = nextLinkBreak(read, batch, applied, store, head);
      const readable = read.state === 'sealed' && (broken === undefined || broken.kind === 'unchained');
      const lines = readable ? read.lines.map(parseArchiveLine) : [];
      if (read.state === 'sealed' && broken === undefined && !stillLive(unit.tx, lines)) {
        this.sink.discard(batch);
        discarding = true;
        continue;
      }
      if (read.state !== 'sealed' || (broken !== undefined && !(broken.kind === 'unchained' && legacyStillLive(unit.tx, lines)))) {
        return refused('archiveStraySegment', strayMessage(this.sink, batch, applied, store, broken ?? { kind: 'unsealed' }), {
          file: this.sink.fileOf(batch),
        });
      }
      this.apply(unit, batch, read.hash, lines);
      this.sink.index(batch, store, read.hash, taskIdsOf(lines));
      applied = batch;
      head = read.hash;
      recovered++;
    }
    return ok(recovered);
  }

  /** Archives one batch of what finished (or was sent) before `before`: at most `limit` tasks, all in this transaction. */
  archive(unit: Unit, before: number, limit: number): Result<ArchiveReport> {
    const planned = this.plan(unit, before, limit);
    if (!planned.ok) return planned;
    if (!isPlan(planned.value)) return ok(planned.value);
    const plan = planned.value;
    const hash = this.sink.write(plan.draft);
    this.apply(unit, plan.batch, hash, plan.lines);
    return ok(this.finished(unit, plan.report));
  }

  /**
   * The first half of archiving in steps (the owner's background retention): brings the exports up
   * to date (with `exportRows`, at most that many rows of each: a step that leaves them behind
   * archives nothing and says more is due), then chooses the batch and makes its lines, or reports
   * that nothing is due. The segment is then written off the owner's
   * thread, and `applyPlanned` applies it in a later transaction.
   */
  plan(unit: Unit, before: number, limit: number, exportRows = Number.POSITIVE_INFINITY): Result<ArchivePlan | ArchiveReport> {
    const recovering = this.recover(unit);
    if (!recovering.ok) return recovering;
    const recovered = recovering.value;
    // The continuous exports must hold every row before it leaves: they are the log tools follow.
    // A step of the owner's exports at most `exportRows` of each; until they are caught up, nothing leaves.
    const exported = this.exporter.exportSome(unit, exportRows);
    if (!exported.ok) return exported;
    if (!exported.value) return ok({ batch: null, tasks: 0, transitions: 0, messages: 0, recovered, more: true });
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
      return ok({ batch: null, tasks: 0, transitions: 0, messages: 0, recovered, more: false, live: countLiveRows(unit.tx) });
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
    const applied = appliedBatch(unit.tx);
    const batch = applied + 1;
    const report = { batch, tasks: tasks.length, transitions: transitions.length, messages: messages.length, recovered, more };
    const draft: SegmentDraft = {
      batch,
      lines: lines.map((line) => JSON.stringify(line)),
      store: ensureStoreId(unit.tx),
      previous: headHash(unit.tx, this.sink, applied),
      firstSeq: transitions[0]?.seq ?? null,
      tasks: taskIdsOf(lines),
    };
    return ok({ batch, lines, draft, report });
  }

  /**
   * The second half: applies a planned batch whose segment is now on disk, if its rows are still
   * as written. Meanwhile a task may have been reset, or another call (`foreman archive`) may have
   * applied the segment already; a stale segment is removed and the batch chosen again next time.
   */
  applyPlanned(unit: Unit, plan: ArchivePlan, hash: string): ArchiveReport {
    const applied = appliedBatch(unit.tx);
    if (applied >= plan.batch) return this.finished(unit, plan.report);
    if (applied !== plan.batch - 1 || !stillLive(unit.tx, plan.lines)) {
      this.sink.discard(plan.batch);
      return { ...plan.report, batch: null, tasks: 0, transitions: 0, messages: 0, more: true };
    }
    this.apply(unit, plan.batch, hash, plan.lines);
    return this.finished(unit, plan.report);
  }

  /** Counting the live rows reads every row: only once nothing more is due. */
  private finished(unit: Unit, report: ArchiveReport): ArchiveReport {
    return { ...report, ...(report.more ? {} : { live: countLiveRows(unit.tx) }) };
  }

  private apply(unit: Unit, batch: number, hash: string, lines: readonly ArchiveLine[]): void {
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
    recordApplied(unit.tx, batch, hash);
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
  return 'draft' in planned;
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

/**
 * A segment from before segments named their store is this store's only on evidence no other
 * store's rows could give: tasks, unchanged field for field (their times are this store's). A seq
 * alone proves nothing: another store's transitions and messages have the same numbers.
 */
function legacyStillLive(reader: Reader, lines: readonly ArchiveLine[]): boolean {
  return lines.some((line) => line.kind === 'task') && stillLive(reader, lines);
}

/** The ids of the tasks among a segment's lines, for the archive's index. */
function taskIdsOf(lines: readonly ArchiveLine[]): string[] {
  return lines.flatMap((line) => (line.kind === 'task' ? [line.id] : []));
}

/** Reads a segment line back through its schema: a segment is a file, and files are checked. */
export function parseArchiveLine(text: string): ArchiveLine {
  const parsed = archiveLineSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new Error(`archive segment line is not valid: ${parsed.error.issues[0]?.message ?? 'unknown'}: ${text.slice(0, 200)}`);
  return parsed.data;
}
