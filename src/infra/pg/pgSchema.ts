/**
 * PostgreSQL's schema, one entry per SQLite migration (src/infra/db/migrations/), written for
 * PostgreSQL: the same tables, columns, constraints and indexes, in its types (SQLite's INTEGER is
 * BIGINT, REAL is DOUBLE PRECISION, an AUTOINCREMENT key an identity column). A new SQLite migration
 * needs its entry here: the SQLite text itself where PostgreSQL runs it as it is (2, 4, 7, 10).
 * pgMigrations.ts refuses to run without it; test/integration/pg/schema.test.ts compares the two
 * schemas column by column.
 */
import { migration0002 } from '../db/migrations/0002_picker_indexes';
import { migration0004 } from '../db/migrations/0004_finished_index';
import { migration0007 } from '../db/migrations/0007_unscheduled_picker';
import { migration0010 } from '../db/migrations/0010_session_confinement';
import { pgSchema0001 } from './pgSchema0001';

export const pgSchema: ReadonlyMap<number, string> = new Map([
  [1, pgSchema0001],
  [2, migration0002],
  [
    3,
    `
ALTER TABLE heartbeats ADD COLUMN activity TEXT;
ALTER TABLE heartbeats ADD COLUMN activity_at BIGINT;
ALTER TABLE heartbeats ADD COLUMN needs_input TEXT;
ALTER TABLE heartbeats ADD COLUMN needs_input_at BIGINT;
ALTER TABLE heartbeats ADD COLUMN input_answer TEXT;

CREATE TABLE agent_sessions (
  task_id TEXT NOT NULL,
  attempt BIGINT NOT NULL,
  worker_id TEXT NOT NULL,
  agent_kind TEXT NOT NULL,
  session_id TEXT,
  runs BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  output_tokens BIGINT NOT NULL DEFAULT 0,
  cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (task_id, attempt)
);
CREATE INDEX agent_sessions_worker ON agent_sessions(worker_id);
`,
  ],
  [4, migration0004],
  [
    5,
    `
CREATE TABLE archive_rollups (
  metric TEXT NOT NULL,
  entity TEXT NOT NULL DEFAULT '',
  a TEXT NOT NULL DEFAULT '',
  b TEXT NOT NULL DEFAULT '',
  count BIGINT NOT NULL DEFAULT 0,
  total DOUBLE PRECISION NOT NULL DEFAULT 0,
  max DOUBLE PRECISION NOT NULL DEFAULT 0,
  PRIMARY KEY (metric, entity, a, b)
);
CREATE INDEX transitions_ts ON transitions(ts_ms);
-- A new task goes after MAX(sort_order): without this, every task.add read every task.
CREATE INDEX tasks_sort_order ON tasks(sort_order);
CREATE INDEX messages_ts ON messages(ts_ms);
`,
  ],
  [
    6,
    `
ALTER TABLE workers ADD COLUMN host TEXT;
ALTER TABLE workers ADD COLUMN owner_id TEXT;
CREATE INDEX workers_owner ON workers(owner_id) WHERE owner_id IS NOT NULL;

CREATE TABLE owners (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid BIGINT,
  started_at BIGINT NOT NULL,
  lease_until_ms BIGINT NOT NULL,
  released_at BIGINT
);
CREATE INDEX owners_lease ON owners(lease_until_ms) WHERE released_at IS NULL;
`,
  ],
  [7, migration0007],
  [
    8,
    `
ALTER TABLE agent_sessions ADD COLUMN cache_read_tokens BIGINT NOT NULL DEFAULT 0;
ALTER TABLE agent_sessions ADD COLUMN cache_write_tokens BIGINT NOT NULL DEFAULT 0;
`,
  ],
  [
    9,
    `
ALTER TABLE workers ADD COLUMN paused_until BIGINT;
`,
  ],
  [10, migration0010],
  [
    11,
    `
ALTER TABLE tasks ADD COLUMN plan_first BIGINT NOT NULL DEFAULT 0;
ALTER TABLE heartbeats ADD COLUMN input_note TEXT;
`,
  ],
  [
    12,
    `
ALTER TABLE tasks ADD COLUMN pr_number BIGINT;
ALTER TABLE tasks ADD COLUMN pr_url TEXT;
ALTER TABLE tasks ADD COLUMN pr_state TEXT;
ALTER TABLE tasks ADD COLUMN pr_base TEXT;
ALTER TABLE tasks ADD COLUMN pr_checks TEXT;
ALTER TABLE tasks ADD COLUMN check_fixes BIGINT NOT NULL DEFAULT 0;
CREATE INDEX tasks_open_pull_requests ON tasks (pr_state) WHERE pr_state = 'open';
`,
  ],
  [
    13,
    `
CREATE TABLE task_touched (
  task_id TEXT NOT NULL,
  path TEXT NOT NULL,
  worker_id TEXT NOT NULL,
  ranges TEXT,
  PRIMARY KEY (task_id, path)
);
CREATE INDEX task_touched_path ON task_touched (path);
CREATE INDEX task_touched_worker ON task_touched (worker_id);
CREATE TABLE overlap_pairs (
  task_id TEXT NOT NULL,
  other_id TEXT NOT NULL,
  choice TEXT NOT NULL CHECK (choice IN ('ignored', 'rebase-when-merged')),
  chosen_at BIGINT NOT NULL,
  PRIMARY KEY (task_id, other_id, choice)
);
CREATE INDEX overlap_pairs_other ON overlap_pairs (other_id);
CREATE TABLE task_paths (
  task_id TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (task_id, path)
);
`,
  ],
]);
