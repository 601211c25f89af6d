import type { Reader, Tx } from '../ports';
import type { TaskRow } from '../rows';

/** The pull request columns of `tasks` (migration 12, docs/handoff.md). */

/** A task's pull request as the forge last said it is. */
export interface PullRequestRow {
  readonly id: string;
  readonly branch: string | null;
  readonly worker_id: string | null;
  readonly pr_number: number;
  readonly pr_url: string;
  readonly pr_state: string;
  readonly pr_base: string | null;
  readonly pr_checks: string | null;
  readonly check_fixes: number;
}

const columns = 'id, branch, worker_id, pr_number, pr_url, pr_state, pr_base, pr_checks, check_fixes';

/** Records the pull request a task's approval opened (or found open again). */
export function recordPullRequest(tx: Tx, taskId: string, number: number, url: string): void {
  tx.run(`UPDATE tasks SET pr_number = ?, pr_url = ?, pr_state = 'open', version = version + 1 WHERE id = ?`, [number, url, taskId]);
}

export function setPullRequestState(tx: Tx, taskId: string, state: string): void {
  tx.run('UPDATE tasks SET pr_state = ?, version = version + 1 WHERE id = ?', [state, taskId]);
}

/** The checks last read on the task's pull request (JSON), and whether one more failure was sent by itself. */
export function setPullRequestChecks(tx: Tx, taskId: string, checks: string, countFix: boolean): void {
  tx.run('UPDATE tasks SET pr_checks = ?, check_fixes = check_fixes + ?, version = version + 1 WHERE id = ?', [
    checks,
    countFix ? 1 : 0,
    taskId,
  ]);
}

/** The branch a task's work is stacked on (an earlier chain step's, in review on the forge); null: the base. */
export function setPullRequestBase(tx: Tx, taskId: string, branch: string | null): void {
  tx.run('UPDATE tasks SET pr_base = ?, version = version + 1 WHERE id = ?', [branch, taskId]);
}

export function findPullRequest(reader: Reader, taskId: string): PullRequestRow | undefined {
  return reader.get<PullRequestRow>(`SELECT ${columns} FROM tasks WHERE id = ? AND pr_number IS NOT NULL`, [taskId]);
}

/** The pull requests the forge is read back for. */
export function listOpenPullRequests(reader: Reader): PullRequestRow[] {
  return reader.all<PullRequestRow>(`SELECT ${columns} FROM tasks WHERE pr_state = 'open' ORDER BY sort_order, created_at`);
}

/** The tasks stacked on `branch`. */
export function listStackedOn(reader: Reader, branch: string): Pick<TaskRow, 'id'>[] {
  return reader.all<Pick<TaskRow, 'id'>>('SELECT id FROM tasks WHERE pr_base = ?', [branch]);
}
