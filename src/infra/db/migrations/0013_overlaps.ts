/**
 * Version 13: overlaps between running tasks kept in the store (issue 33, docs/overlaps.md), so that
 * an owner restart keeps a person's choices, a one-shot `status` shows them, and the owners of a
 * shared store see each other's tasks. `task_touched`: the files a running task touched, written by
 * the owner whose worker holds it (`ranges`: the changed base lines as JSON `[[start, end], …]`, NULL
 * when only the name is known); rows go when the task stops running. `overlap_pairs`: what a person
 * chose for a pair (an ignored pair is kept in both orders). `task_paths`: the files a task is
 * expected to touch (its `--paths` hint; for a chain's parent, what its finished steps touched).
 */
export const migration0013 = `
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
  chosen_at INTEGER NOT NULL,
  PRIMARY KEY (task_id, other_id, choice)
);
CREATE INDEX overlap_pairs_other ON overlap_pairs (other_id);
CREATE TABLE task_paths (
  task_id TEXT NOT NULL,
  path TEXT NOT NULL,
  PRIMARY KEY (task_id, path)
);
`;
