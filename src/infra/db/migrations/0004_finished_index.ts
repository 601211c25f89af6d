/**
 * Version 4: the most recently finished tasks without a sort of every task, for `status` pages
 * that show the active tasks first and then the latest finished ones (issue 13).
 */
export const migration0004 = `
CREATE INDEX tasks_finished ON tasks(finished_at) WHERE finished_at IS NOT NULL;
`;
