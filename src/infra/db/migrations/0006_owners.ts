/**
 * Version 6: several owners on one store (issue 14). A worker belongs to a host (`workers.host`;
 * NULL, as every worker before this version: any machine, the one owner there was); the owner that
 * handed it its task is `workers.owner_id` (NULL: no owner identity, a single-owner store). Each
 * running owner keeps a row in `owners` and renews `lease_until_ms`; `released_at` is set once the
 * work of an owner whose lease ran out has been taken back, so that it is taken back once.
 */
export const migration0006 = `
ALTER TABLE workers ADD COLUMN host TEXT;
ALTER TABLE workers ADD COLUMN owner_id TEXT;
CREATE INDEX workers_owner ON workers(owner_id) WHERE owner_id IS NOT NULL;

CREATE TABLE owners (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER,
  started_at INTEGER NOT NULL,
  lease_until_ms INTEGER NOT NULL,
  released_at INTEGER
);
CREATE INDEX owners_lease ON owners(lease_until_ms) WHERE released_at IS NULL;
`;
