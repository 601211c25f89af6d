import type { StatusSnapshot } from '../engine/statusView';

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
