/**
 * Schema version 1: ARCHITECTURE §3 (workers, tasks), §7 (bus), §8 (audit, idempotency).
 * Times are epoch milliseconds passed as parameters; nothing here calls now() or random().
 */
export const migration0001 = `
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  state TEXT NOT NULL,
  agent TEXT NOT NULL,
  max_attempts INTEGER,
  task_id TEXT,
  branch TEXT,
  attempt INTEGER NOT NULL DEFAULT 0,
  last_error TEXT,
  note TEXT,
  summary TEXT,
  state_changed_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  version INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE tasks (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  prompt TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  planning_phase TEXT NOT NULL DEFAULT 'none',
  blocked_by_task_id TEXT REFERENCES tasks(id) ON DELETE SET NULL,
  parent_task_id TEXT REFERENCES tasks(id),
  auto_dispatch INTEGER NOT NULL DEFAULT 1,
  attempt INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL DEFAULT 3,
  sort_order INTEGER NOT NULL,
  scheduled_for INTEGER,
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  result TEXT,
  last_error TEXT,
  worker_id TEXT,
  last_worker_id TEXT,
  branch TEXT,
  -- The branch of the attempt before this one: a task that moves to another worker continues from its tip.
  previous_branch TEXT,
  version INTEGER NOT NULL DEFAULT 0
);
-- The picker's index: claims stay flat as the table grows (PERF-FACTS).
CREATE INDEX tasks_runnable ON tasks(sort_order, created_at)
  WHERE status = 'queued' AND blocked_by_task_id IS NULL;
CREATE INDEX tasks_blocked_by ON tasks(blocked_by_task_id) WHERE blocked_by_task_id IS NOT NULL;
CREATE INDEX tasks_parent ON tasks(parent_task_id, sort_order) WHERE parent_task_id IS NOT NULL;
CREATE INDEX tasks_scheduled ON tasks(scheduled_for) WHERE status = 'queued' AND scheduled_for IS NOT NULL;
CREATE INDEX tasks_status ON tasks(status);

CREATE TABLE transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts_ms INTEGER NOT NULL,
  entity_type TEXT NOT NULL CHECK (entity_type IN ('worker', 'task')),
  entity_id TEXT NOT NULL,
  from_state TEXT NOT NULL,
  to_state TEXT NOT NULL,
  trigger TEXT NOT NULL,
  reason TEXT,
  actor TEXT NOT NULL,
  attempt INTEGER,
  request_id TEXT,
  metadata TEXT
);
CREATE INDEX transitions_entity ON transitions(entity_type, entity_id, seq);

CREATE TABLE rejections (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  ts_ms INTEGER NOT NULL,
  entity_type TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  from_state TEXT,
  trigger TEXT NOT NULL,
  code TEXT NOT NULL,
  reason TEXT NOT NULL,
  actor TEXT NOT NULL,
  attempt INTEGER,
  request_id TEXT
);

CREATE TABLE messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  ts_ms INTEGER NOT NULL,
  from_agent TEXT NOT NULL,
  to_agent TEXT,
  type TEXT NOT NULL,
  correlation_id TEXT,
  in_reply_to TEXT,
  payload TEXT,
  payload_ref TEXT,
  CHECK (payload IS NULL OR payload_ref IS NULL)
);
CREATE INDEX messages_to ON messages(to_agent, seq);

CREATE TABLE cursors (
  agent_id TEXT PRIMARY KEY,
  last_acked_seq INTEGER NOT NULL DEFAULT 0,
  updated_at_ms INTEGER NOT NULL
);

CREATE TABLE heartbeats (
  agent_id TEXT PRIMARY KEY,
  ts_ms INTEGER NOT NULL,
  status TEXT NOT NULL,
  current_task TEXT,
  attempt INTEGER,
  progress REAL,
  source TEXT NOT NULL DEFAULT 'agent'
);

CREATE TABLE task_claims (
  task_id TEXT PRIMARY KEY,
  claimed_by TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  claimed_at_ms INTEGER NOT NULL,
  lease_until_ms INTEGER NOT NULL
);

CREATE TABLE idempotency_keys (
  request_id TEXT PRIMARY KEY,
  command TEXT NOT NULL,
  response TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX idempotency_expiry ON idempotency_keys(expires_at);

CREATE TABLE export_state (
  stream TEXT PRIMARY KEY,
  last_seq INTEGER NOT NULL DEFAULT 0
);
INSERT INTO export_state (stream, last_seq) VALUES ('messages', 0), ('transitions', 0);
`;
