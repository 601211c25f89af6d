import { type LineRange, OverlapIndex, type OverlapSubject, type TouchedFile } from '../../core/overlapIndex';
import type { TaskOverlap } from '../../core/overlaps';
import type { Reader, Tx } from '../ports';
import {
  type OverlapChoiceRow,
  type TouchedRow,
  deleteTouched,
  deleteTouchedOfTask,
  insertTouched,
  insertTouchedIfNew,
  listOverlapChoices,
  listOverlapChoicesOf,
  listSharedTouched,
  listTouchedAround,
  listTouchedOn,
  updateTouchedRanges,
} from '../queries';

/**
 * Overlaps as the store holds them (docs/overlaps.md): the rows of `task_touched` and
 * `overlap_pairs` read into the pure index (core/overlapIndex.ts) for one computation, and what a
 * task touched written back as the difference from what the store had. Whoever reads (an owner, a
 * one-shot CLI call, another machine's owner of a shared store) computes the same overlaps.
 */

/** `[[start, end], …]`, or null when only the file's name is known. */
export function encodeRanges(ranges: readonly LineRange[] | undefined): string | null {
  return ranges ? JSON.stringify(ranges.map((range) => [range.start, range.end])) : null;
}

function decodeRanges(text: string | null): LineRange[] | undefined {
  if (text === null) return undefined;
  const pairs = JSON.parse(text) as [number, number][];
  return pairs.map(([start, end]) => ({ start, end }));
}

function indexOf(rows: readonly TouchedRow[], choices: readonly OverlapChoiceRow[]): OverlapIndex {
  const index = new OverlapIndex();
  const byTask = new Map<string, { subject: { taskId: string; workerId: string; title: string }; files: TouchedFile[] }>();
  for (const row of rows) {
    let entry = byTask.get(row.task_id);
    if (!entry)
      byTask.set(row.task_id, (entry = { subject: { taskId: row.task_id, workerId: row.worker_id, title: row.title }, files: [] }));
    const ranges = decodeRanges(row.ranges);
    entry.files.push(ranges ? { path: row.path, ranges } : { path: row.path });
  }
  for (const { subject, files } of byTask.values()) index.set(subject, files);
  for (const choice of choices) {
    if (choice.choice === 'ignored') index.ignore(choice.task_id, choice.other_id);
    else index.setPlan(choice.task_id, choice.other_id, choice.choice);
  }
  return index;
}

/**
 * Every running task's overlaps, read now (the answer may be asked after the read ended, a status
 * read in pages): the rows of shared files only, so a crew without overlaps costs one empty read.
 */
export function readOverlaps(reader: Reader): (taskId: string | null) => readonly TaskOverlap[] {
  const shared = listSharedTouched(reader);
  if (shared.length === 0) return () => [];
  const index = indexOf(shared, listOverlapChoices(reader));
  return (taskId) => (taskId === null ? [] : index.overlapsOf(taskId));
}

/** One task's files and the overlaps they make: its own rows, those of the tasks sharing a file, its choices. */
export interface Around {
  readonly index: OverlapIndex;
  readonly rows: readonly TouchedRow[];
  readonly choices: readonly OverlapChoiceRow[];
  /** The task's own files: path → ranges as stored. */
  readonly own: ReadonlyMap<string, string | null>;
  /** The worker its rows name, if it has any. */
  readonly workerId: string | undefined;
  /** The workers of the tasks around it, by task. */
  readonly holders: ReadonlyMap<string, string>;
}

export function readAround(reader: Reader, taskId: string): Around {
  const rows = listTouchedAround(reader, taskId);
  const own = new Map<string, string | null>();
  const holders = new Map<string, string>();
  let workerId: string | undefined;
  for (const row of rows) {
    holders.set(row.task_id, row.worker_id);
    if (row.task_id !== taskId) continue;
    own.set(row.path, row.ranges);
    workerId = row.worker_id;
  }
  const choices = listOverlapChoicesOf(reader, taskId);
  return { index: indexOf(rows, choices), rows, choices, own, workerId, holders };
}

/**
 * What `readAround` reads once `written` is in the store, without reading it all again: the others'
 * rows as they were, the task's new files, and the rows of the tasks that touched a file it added.
 */
export function readAroundAfter(
  reader: Reader,
  before: Around,
  subject: OverlapSubject & { readonly workerId: string },
  written: Written,
): Around {
  const rows: TouchedRow[] = before.rows.filter((row) => row.task_id !== subject.taskId);
  const seen = new Set(rows.map((row) => `${row.task_id}\u0000${row.path}`));
  for (const [path, ranges] of written.own)
    rows.push({ task_id: subject.taskId, path, worker_id: subject.workerId, ranges, title: subject.title });
  for (const path of written.added) {
    for (const row of listTouchedOn(reader, path, subject.taskId)) if (!seen.has(`${row.task_id}\u0000${row.path}`)) rows.push(row);
  }
  const holders = new Map(before.holders);
  for (const row of rows) holders.set(row.task_id, row.worker_id);
  return { index: indexOf(rows, before.choices), rows, choices: before.choices, own: written.own, workerId: subject.workerId, holders };
}

/** What `writeTouched` wrote: whether anything, the files added, and the task's files now. */
export interface Written {
  readonly changed: boolean;
  readonly added: readonly string[];
  readonly own: ReadonlyMap<string, string | null>;
}

/**
 * Writes what the task touched as the difference from `known`: `add` keeps what is known and adds
 * new files (an agent's edit event), `set` replaces it (the worktree's diff). Returns whether
 * anything was written.
 */
export function writeTouched(
  tx: Tx,
  subject: { readonly taskId: string; readonly workerId: string },
  around: Pick<Around, 'own' | 'workerId'>,
  files: readonly TouchedFile[],
  mode: 'add' | 'set',
): Written {
  let known = around.own;
  // Rows of another worker are left from an attempt that ended without their removal (a crash).
  if (around.workerId !== undefined && around.workerId !== subject.workerId) {
    deleteTouchedOfTask(tx, subject.taskId);
    known = new Map();
  }
  let changed = known !== around.own;
  const next = new Map<string, string | null>();
  for (const file of files) if (!next.has(file.path)) next.set(file.path, encodeRanges(file.ranges));
  const added: string[] = [];
  for (const [path, ranges] of next) {
    if (!known.has(path)) {
      insertTouched(tx, subject.taskId, path, subject.workerId, ranges);
      added.push(path);
      changed = true;
    } else if (mode === 'set' && known.get(path) !== ranges) {
      updateTouchedRanges(tx, subject.taskId, path, ranges);
      changed = true;
    }
  }
  if (mode === 'set') {
    for (const path of known.keys()) {
      if (next.has(path)) continue;
      deleteTouched(tx, subject.taskId, path);
      changed = true;
    }
    return { changed, added, own: next };
  }
  const own = new Map(known);
  for (const path of added) own.set(path, next.get(path) ?? null);
  return { changed, added, own };
}

/**
 * An agent's edit event, the hot path (docs/overlaps.md, ≤ 5 ms at 50 workers): the files are added
 * to what the task touched, one statement each, and only a file it had not touched before can
 * change a pair: the held tasks that touched it too, unless the pair is ignored. Returns them, with
 * their workers.
 */
export function addTouched(
  tx: Tx,
  subject: { readonly taskId: string; readonly workerId: string },
  paths: readonly string[],
): Map<string, string> {
  const sharers = new Map<string, string>();
  for (const path of paths) {
    if (insertTouchedIfNew(tx, subject.taskId, path, subject.workerId) === 0) continue;
    for (const row of listTouchedOn(tx, path, subject.taskId)) sharers.set(row.task_id, row.worker_id);
  }
  if (sharers.size)
    for (const choice of listOverlapChoicesOf(tx, subject.taskId)) if (choice.choice === 'ignored') sharers.delete(choice.other_id);
  return sharers;
}

/** The tasks whose pair with `taskId` reads differently in `after` than in `before` (a plan aside). */
export function changedPairs(before: OverlapIndex, after: OverlapIndex, taskId: string): string[] {
  const pairs = (index: OverlapIndex) =>
    new Map(index.overlapsOf(taskId).map((overlap) => [overlap.taskId, `${overlap.hunks}\u0000${overlap.files.join('\u0000')}`]));
  const was = pairs(before);
  const is = pairs(after);
  return [...new Set([...was.keys(), ...is.keys()])].filter((other) => was.get(other) !== is.get(other));
}
