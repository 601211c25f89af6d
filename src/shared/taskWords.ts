/**
 * A task status in task words, wherever tasks are grouped by status (the Queue view's groups, the
 * dashboard's Tasks tabs): `idle` is the store's word for a task nobody queued (a manual one, or one
 * reset), and "Idle" is what the Workers view calls a worker with nothing to do.
 */
export const taskStatusWords: Readonly<Record<string, string>> = {
  running: 'In progress',
  queued: 'Queued',
  idle: 'To assign',
  failed: 'Failed',
  cancelled: 'Cancelled',
  done: 'Done',
};

/** The name a status shows (an unknown status as it is written, capitalised). */
export function taskStatusWord(status: string): string {
  return taskStatusWords[status] ?? status.charAt(0).toUpperCase() + status.slice(1);
}
