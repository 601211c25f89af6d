/**
 * Schema version 3: the agents' own signals (ARCHITECTURE §6).
 *
 * `heartbeats` learns what the agent is doing (`activity`: "Bash: npm test") and whether it waits
 * for a person (`needs_input`) and the person's answer (`input_answer`: allow or deny), each with its time, so a view can tell a fresh signal from one left
 * over from an earlier run. `agent_sessions` keeps, per task attempt, the agent's own session (what
 * a follow-up resumes) and the tokens and money its runs used; sums per task and worker are
 * computed from it, so there is one place that counts.
 */
export const migration0003 = `
ALTER TABLE heartbeats ADD COLUMN activity TEXT;
ALTER TABLE heartbeats ADD COLUMN activity_at INTEGER;
ALTER TABLE heartbeats ADD COLUMN needs_input TEXT;
ALTER TABLE heartbeats ADD COLUMN needs_input_at INTEGER;
ALTER TABLE heartbeats ADD COLUMN input_answer TEXT;

CREATE TABLE agent_sessions (
  task_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  worker_id TEXT NOT NULL,
  agent_kind TEXT NOT NULL,
  session_id TEXT,
  runs INTEGER NOT NULL DEFAULT 0,
  input_tokens INTEGER NOT NULL DEFAULT 0,
  output_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd REAL NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, attempt)
);
CREATE INDEX agent_sessions_worker ON agent_sessions(worker_id);
`;
