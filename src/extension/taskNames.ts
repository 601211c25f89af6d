import type { StatusSnapshot, TaskStatusView } from '../engine/statusView';

/** Task id → title, built once per redraw: a lookup per worker row would scan every task. */
export type TaskTitles = ReadonlyMap<string, string>;

export function taskTitles(snapshot: Pick<StatusSnapshot, 'tasks'>): TaskTitles {
  return new Map(snapshot.tasks.map((task) => [task.id, task.title]));
}

/**
 * How a person reads a task: by its title, which they wrote; the id is for tooltips and commands.
 * A task the snapshot does not hold (yet) falls back to its id, so nothing shows empty.
 */
export function taskName(titles: TaskTitles, taskId: string): string {
  const title = titles.get(taskId)?.trim();
  return title ? title : taskId;
}

/** "Add a greeting module (greeting-feature-1)": the title with the id, where both fit. */
export function taskNameWithId(titles: TaskTitles, taskId: string): string {
  const name = taskName(titles, taskId);
  return name === taskId ? taskId : `${name} (${taskId})`;
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * What a person reads when a task failed for good: its name, how many attempts it had and why.
 * A chain's parent is never attempted itself (it fails with its child), so "after 0 attempts" is
 * left out; a reason that is a sentence of its own ("…choose another worktree root.") gets no
 * second full stop.
 */
export function failedText(name: string, task: Pick<TaskStatusView, 'attempt' | 'lastError'>): string {
  const after = task.attempt > 0 ? ` after ${plural(task.attempt, 'attempt')}` : '';
  const text = `Foreman: "${name}" failed${after}${task.lastError ? `: ${task.lastError}` : ''}`;
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
