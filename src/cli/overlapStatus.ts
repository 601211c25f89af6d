import type { StatusSnapshot } from '../engine/statusView';

/** At most this many files are named on a status line; the rest are counted. */
const namedFiles = 3;

/**
 * `foreman status`'s overlaps (issue 33, docs/overlaps.md): one line per shown task that touches
 * a file another running task touches, naming the other task, its worker and the files; changed
 * lines that meet are said louder (`!!`). Empty when nothing overlaps.
 */
export function overlapStatusLines(status: Pick<StatusSnapshot, 'tasks'>): string[] {
  const lines: string[] = [];
  for (const task of status.tasks) {
    for (const overlap of task.overlaps) {
      const files = overlap.files.slice(0, namedFiles).join(', ');
      const more = overlap.files.length > namedFiles ? ` and ${overlap.files.length - namedFiles} more` : '';
      const mine = task.workerId ? `${task.id} (${task.workerId})` : task.id;
      const theirs = overlap.workerId ? `${overlap.taskId} (${overlap.workerId})` : overlap.taskId;
      const plan = overlap.plan ? `; ${overlap.plan}` : '';
      lines.push(
        overlap.hunks
          ? `!! ${mine} changes the same lines as ${theirs} in ${files}${more}${plan}`
          : `   ${mine} touches the same files as ${theirs}: ${files}${more}${plan}`,
      );
    }
  }
  return lines.length ? ['overlaps (foreman overlap run-after|rebase-when-merged|ignore <task> <other>):', ...lines] : [];
}
