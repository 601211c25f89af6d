/**
 * Version 5: retention (issue 13). Finished work moves out to archive segments; what the metrics
 * counted of it stays here as rollups, added to what the live rows give. The time indexes let a
 * batch find the oldest worker transitions and messages by reading about as many rows as it takes.
 *
 * `archive_rollups` holds one row per (metric, entity, a, b): a count, a total and a maximum.
 *   transition_pair  entity, a = from, b = to      count
 *   time_in_state    entity, a = state             count, total = ms summed, max = longest ms
 *   finished         a = status                    count (tasks archived in that status)
 *   usage_input / usage_output / usage_cost   a = worker   total
 */
export const migration0005 = `
CREATE TABLE archive_rollups (
  metric TEXT NOT NULL,
  entity TEXT NOT NULL DEFAULT '',
  a TEXT NOT NULL DEFAULT '',
  b TEXT NOT NULL DEFAULT '',
  count INTEGER NOT NULL DEFAULT 0,
  total REAL NOT NULL DEFAULT 0,
  max REAL NOT NULL DEFAULT 0,
  PRIMARY KEY (metric, entity, a, b)
);
CREATE INDEX transitions_ts ON transitions(ts_ms);
-- A new task goes after MAX(sort_order): without this, every task.add read every task.
CREATE INDEX tasks_sort_order ON tasks(sort_order);
CREATE INDEX messages_ts ON messages(ts_ms);
`;
