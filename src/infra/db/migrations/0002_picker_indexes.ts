/**
 * Schema version 2: the picker's partial indexes lead with `status`.
 *
 * With 0001's indexes SQLite's planner prefers `tasks_status` for `status = 'queued'` (without
 * statistics it takes any equality to be selective), then sorts every queued task: a claim cost
 * 20 ms at 100k tasks instead of 30 µs, and grew with the table. An index that offers the same
 * equality and also the ORDER BY wins, so the partial indexes now start with `status`.
 * Measured plans: `SEARCH tasks USING INDEX tasks_runnable (status=?)` for the claim and peek,
 * `SEARCH tasks USING COVERING INDEX tasks_scheduled (status=? AND scheduled_for>?)` for the next
 * due time.
 */
export const migration0002 = `
DROP INDEX tasks_runnable;
CREATE INDEX tasks_runnable ON tasks(status, sort_order, created_at)
  WHERE status = 'queued' AND blocked_by_task_id IS NULL;
DROP INDEX tasks_scheduled;
CREATE INDEX tasks_scheduled ON tasks(status, scheduled_for)
  WHERE status = 'queued' AND scheduled_for IS NOT NULL;
`;
