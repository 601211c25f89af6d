import type { TaskOverlap } from '../core/overlaps';
import { ActionName } from './protocolFields';

/**
 * How an overlap between two running tasks reads (issue 33), in the Workers and Queue trees and on
 * the dashboard's cards alike: the other task and how many files, then the files themselves and
 * whether changed lines meet. Plain text only; each view renders it as text.
 */

/**
 * A worker's or a task's overlaps, `[]` when it has none. The engine's status view carries them on
 * `WorkerStatus` and `TaskStatusView`; a snapshot from an engine that does not report them reads as none.
 */
export function overlapsOf(item: { readonly overlaps?: readonly TaskOverlap[] }): readonly TaskOverlap[] {
  return item.overlaps ?? [];
}

/** "2 files", "1 file". */
export function fileCount(overlap: Pick<TaskOverlap, 'files'>): string {
  return `${overlap.files.length} file${overlap.files.length === 1 ? '' : 's'}`;
}

/** Whether any of them has changed lines that meet: the louder warning. */
export function hunksMeet(overlaps: readonly TaskOverlap[]): boolean {
  return overlaps.some((overlap) => overlap.hunks);
}

/** "changed lines overlap" or "same files, different lines". */
export function hunkWords(overlap: Pick<TaskOverlap, 'hunks'>): string {
  return overlap.hunks ? 'changed lines overlap' : 'same files, different lines';
}

/** What a person chose for the pair, in words; undefined while nothing is chosen. */
export function planWords(overlap: Pick<TaskOverlap, 'plan'>): string | undefined {
  return overlap.plan === 'rebase-when-merged' ? 'rebases when it merges' : undefined;
}

/**
 * One overlap as a line: "t-12 Fix login on w2: 2 files, changed lines overlap · rebases when it
 * merges". `files` lists them after a colon when asked (a tooltip), not in a row.
 */
export function overlapLine(overlap: TaskOverlap, options: { files?: boolean } = {}): string {
  const holder = overlap.workerId ? ` on ${overlap.workerId}` : '';
  const plan = planWords(overlap);
  const head = `${overlap.taskId} ${overlap.title}${holder}: ${fileCount(overlap)}, ${hunkWords(overlap)}${plan ? ` · ${plan}` : ''}`;
  return options.files && overlap.files.length ? `${head}\n${overlap.files.map((file) => `  ${file}`).join('\n')}` : head;
}

/** The two workers an overlap joins, as one key whichever side reports it (sorted). */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

/**
 * The answers a card offers beside an overlap: Rebase When Merged only while it is not already the
 * plan (the card says the plan instead). Whether the task can still be stopped or rebased is the
 * engine's to say: it refuses in words. The host checks a click against the same list.
 */
export function overlapActions(overlap: Pick<TaskOverlap, 'plan'>): readonly ActionName[] {
  return overlap.plan === 'rebase-when-merged'
    ? [ActionName.overlapRunAfter, ActionName.overlapIgnore]
    : [ActionName.overlapRunAfter, ActionName.overlapRebaseWhenMerged, ActionName.overlapIgnore];
}

/** The actions that answer an overlap, and only those, take an `overlap` target. */
export const overlapActionNames: readonly ActionName[] = [
  ActionName.overlapRunAfter,
  ActionName.overlapRebaseWhenMerged,
  ActionName.overlapIgnore,
];
