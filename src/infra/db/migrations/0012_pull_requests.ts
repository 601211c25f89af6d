/**
 * Version 12: hand-off through pull requests (issue 32, docs/handoff.md). A task approved in a
 * `pull-request` workspace records its pull request (number, address, what the forge last said),
 * the branch its work is stacked on while a chain's earlier step is still in review there
 * (`pr_base`; NULL: the workspace's base), the checks last read on it (JSON), and how many check
 * failures were sent to its agent by themselves (`autoFixChecks` is bounded by it).
 */
export const migration0012 = `
ALTER TABLE tasks ADD COLUMN pr_number INTEGER;
ALTER TABLE tasks ADD COLUMN pr_url TEXT;
ALTER TABLE tasks ADD COLUMN pr_state TEXT;
ALTER TABLE tasks ADD COLUMN pr_base TEXT;
ALTER TABLE tasks ADD COLUMN pr_checks TEXT;
ALTER TABLE tasks ADD COLUMN check_fixes INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tasks_open_pull_requests ON tasks (pr_state) WHERE pr_state = 'open';
`;
