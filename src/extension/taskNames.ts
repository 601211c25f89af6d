import type { StatusSnapshot, TaskStatusView } from '../engine/statusView';
import type { Localizer } from './localizer';

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

/**
 * What a person reads when a task failed for good: its name, how many attempts it had and why.
 * A chain's parent is never attempted itself (it fails with its child), so "after 0 attempts" is
 * left out; a reason that is a sentence of its own ("…choose another worktree root.") gets no
 * second full stop.
 */
export function failedText(name: string, task: Pick<TaskStatusView, 'attempt' | 'lastError'>, l10n: Localizer): string {
  // Whole sentences per case: a translation may order the words differently.
  const { attempt, lastError } = task;
  const text = lastError
    ? attempt === 0
      ? l10n.t('Foreman: "{0}" failed: {1}', name, lastError)
      : attempt === 1
        ? l10n.t('Foreman: "{0}" failed after 1 attempt: {1}', name, lastError)
        : l10n.t('Foreman: "{0}" failed after {1} attempts: {2}', name, attempt, lastError)
    : attempt === 0
      ? l10n.t('Foreman: "{0}" failed', name)
      : attempt === 1
        ? l10n.t('Foreman: "{0}" failed after 1 attempt', name)
        : l10n.t('Foreman: "{0}" failed after {1} attempts', name, attempt);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
